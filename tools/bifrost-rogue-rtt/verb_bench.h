#pragma once
// RoGUE's verb completion time (Fig. 7 of the RoGUE paper) and its signalling per byte
// (Figs. 2, 3, 6) on two simulated hosts (rogue_hosts.h): side 0 posts RC verbs to side 1 in
// groups, each group `signal_every` verbs of which only the last is signalled, keeping `groups`
// groups outstanding, over a bare RC QP (RoCE: the NIC alone, no software congestion control)
// or a RoGUE connection (with its modelled host CPU, RogueConfig::signal_cost /
// clock_read_cost). One group at a time of one signalled verb is the paper's Fig. 7 loop.
#include <cstdint>
#include <string>

#include "bifrost/core/time.h"
#include "rogue_hosts.h"

namespace bifrost::rogue_rtt {

enum class Scheme : uint8_t { roce, rogue };
std::string to_string(Scheme scheme);

struct VerbBenchConfig {
  WireConfig wire{};
  Scheme scheme = Scheme::rogue;
  bool read = true;  // RC READ; false: RC WRITE
  uint64_t verb_bytes = 64;
  uint32_t signal_every = 1;  // verbs per group, the last signalled
  uint32_t groups = 1;        // groups outstanding
  uint32_t warmup = 20;       // groups completed before measuring (RoGUE's window grows)
  uint32_t measured = 200;    // groups measured
  // RoGUE's host CPU model (RogueConfig), its batches kept enqueued and its window's cap.
  Time signal_cost = Time::zero();
  Time clock_read_cost = Time::zero();
  uint32_t min_batches = 2;
  uint64_t max_window_bytes = 0;  // RoGUE's Vegas window cap (0: Vegas's default)
};

struct VerbResult {
  uint64_t groups = 0;  // measured
  double mean_us = 0;   // a group's completion time, post of its first verb to its completion
  double p50_us = 0;
  double p99_us = 0;
  uint64_t bytes = 0;  // of the measured groups
  Time elapsed;        // from the first measured post to the last completion
  // Over the measured groups: signalled WQEs, WQEs posted, NIC clock reads, modelled host CPU.
  uint64_t signals = 0;
  uint64_t wqes = 0;
  uint64_t clock_reads = 0;
  uint64_t modelled_cpu_ns = 0;
  double gbps() const;
  // Per GB (1e9 bytes) moved.
  double per_gb(uint64_t count) const;
};

VerbResult run_verbs(const VerbBenchConfig& config);

}  // namespace bifrost::rogue_rtt
