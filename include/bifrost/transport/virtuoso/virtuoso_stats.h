#pragma once
// Virtuoso's counters, the CPU proxy of the paper's Fig. 8 (it measured cycles; a simulator
// counts the work that costs them): library calls, constituent WRs posted, CQEs handled and
// completion-channel wake-ups (the paper blocks in ibv_get_cq_event), per MB moved.
#include <cstdint>

#include "bifrost/core/time.h"

namespace bifrost::transport::virtuoso {

struct VirtuosoStats {
  uint64_t library_calls = 0;  // MP_ calls: connect, disconnect, post_send, post_recv
  uint64_t mp_wrs = 0;         // MP WRs posted (MP_ibv_post_send)
  uint64_t mp_completions = 0;
  uint64_t mp_receives = 0;      // MP RECV completions
  uint64_t wrs_posted = 0;       // constituent send-queue WRs given to the QPs
  uint64_t receives_posted = 0;  // staging receives given to the QPs
  uint64_t cqes = 0;             // completions taken from the shared CQ
  uint64_t wakeups = 0;          // scheduler turns with at least one completion: one event each
  uint64_t bytes = 0;            // MP WR payload bytes completed
  uint64_t small_sends = 0;      // MP SENDs carried whole by one SEND
  uint64_t large_sends = 0;      // MP SENDs as WRITEs and an empty SEND
  uint64_t bytes_copied = 0;     // small SENDs copied from staging into the MP RECV's buffer
  uint64_t duplicates_dropped = 0;
  uint64_t adverts_sent = 0;  // receive-buffer adverts, first and repeated
  uint64_t probes = 0;        // probe flows run (one per path per probing)
  uint64_t probe_cache_hits = 0;
  uint64_t retry_exceeded = 0;  // constituent WRs failed with RETRY_EXC
  uint64_t recoveries = 0;      // path QPs brought back ERR -> RTS (this side or the peer's)
  uint64_t wrs_reposted = 0;    // constituent WRs posted again after a recovery
  Time probe_time;              // how long the last probing took

  // Work per MB of payload (the paper's Fig. 8 axis).
  double per_mb(uint64_t count) const {
    return bytes == 0 ? 0.0 : static_cast<double>(count) * 1e6 / static_cast<double>(bytes);
  }
};

}  // namespace bifrost::transport::virtuoso
