#pragma once
// What a RoGUE connection counts (bifrost-perf prints these; summaries carry their totals).
#include <cstdint>
#include <optional>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::transport::rogue {

struct RogueStats {
  uint64_t verbs_posted = 0;       // application verbs
  uint64_t segments_posted = 0;    // WQEs posted for them (and UC echo-request tags)
  uint64_t batches = 0;            // batches opened (WRITE/SEND and READ)
  uint64_t signals = 0;            // signaled WQEs posted by RoGUE
  uint64_t clock_reads = 0;        // NIC clock reads (t_enq, one a batch; a wasted one too)
  uint64_t signals_charged = 0;    // signals RoGUE handled for itself (RogueConfig::signal_cost)
  uint64_t modelled_cpu_ns = 0;    // host CPU time charged (signal_cost, clock_read_cost)
  uint64_t rtt_samples = 0;        // samples that reached the CC
  uint64_t held_off_samples = 0;   // samples taken inside the hold-off after a rate change
  uint64_t discarded_samples = 0;  // samples that came out at or below zero (not to the CC)
  uint64_t rate_updates = 0;       // new limits put on a limiter (ours or, READ, the peer's)
  uint64_t lost_echoes = 0;        // UC batches whose echo never came (a later one came first)
  uint64_t sample_timeouts = 0;    // UC: every outstanding sample lost
  uint64_t probes = 0;             // UC: echo requests sent alone after a sample timeout
  uint64_t shadow_switches = 0;    // RC: a shadow QP took over a failed one
  uint64_t resent_segments = 0;    // RC: segments posted again on the shadow
  uint64_t resyncs = 0;            // RC: failed QPs resynchronised into the new shadow
  uint64_t duplicates_suppressed = 0;  // receives a whole-verb resend delivered twice
  uint64_t echoes_sent = 0;            // UC: echoes this side's library answered
  uint64_t verbs_completed = 0;        // application verbs completed with success
  uint64_t bytes_completed = 0;        // their bytes
  uint64_t verbs_failed = 0;
};

// One event of a connection's congestion control, for traces and for tests that check RoGUE's
// invariants at every step (RogueConnection::set_trace).
struct TraceEvent {
  enum class Kind : uint8_t {
    pumped,  // posting stopped: the window, the gate, or nothing left to post
    sample,  // a batch's RTT sample (held_off: not given to the CC)
    rate,    // a new rate went on the limiter (or, READ, was asked of the peer)
  };
  Kind kind = Kind::pumped;
  bool read = false;  // the READ window (else WRITE/SEND)
  Time now{};
  uint64_t cwnd = 0;
  uint32_t batches_in_flight = 0;
  bool data_pending = false;       // pumped: a verb of this window is next and not posted
  bool gated = false;              // UC: the sample timeout holds posting
  bool recovering = false;         // RC: no QP ready (the shadow failed before the resync ended)
  bool host_busy = false;          // pumped: the modelled host CPU holds posting (host_cpu.h)
  Time rtt{};                      // sample
  Time base_rtt{};                 // sample: the CC's base after it
  bool held_off = false;           // sample
  uint64_t enqueued_at_bytes = 0;  // sample: the limiter count when the batch was enqueued
  uint64_t holdoff_until = 0;      // sample: the count before which samples are held off
  std::optional<Rate> old_rate{};  // rate (nullopt: unlimited)
  std::optional<Rate> new_rate{};
};

}  // namespace bifrost::transport::rogue
