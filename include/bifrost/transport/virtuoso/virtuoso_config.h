#pragma once
// Virtuoso's knobs (Tian et al., "A Novel Software-based Multi-path RDMA Solution for Data
// Center Networks"; docs/transport.md, "Virtuoso"): how many paths, the block that memory is
// divided into, the small-SEND limit, path probing, the chunk (WR size) search of lossy
// networks and the QPs' own parameters, which the application sets (the paper's MP_connect
// takes over "qp_type" and "max_send_wr").
#include <cstdint>

#include "bifrost/core/time.h"

namespace bifrost::transport::virtuoso {

// The lossy-network chunk search (§3.5): binary increase while WRs succeed, back to the
// previous size on RETRY_EXC, then linear increase until the next RETRY_EXC, back again, done.
struct ChunkSearchConfig {
  bool enabled = false;  // off: WRs as large as max_wr_bytes, max_send_wr in flight per path
  uint64_t initial = 64 * 1024;
  uint64_t linear_step = 64 * 1024;
  // Successful WRs of the current size before the next step; 0: one per path (an iteration).
  uint32_t successes_per_step = 0;
  // Ours, not the paper's (which stops at the threshold): once settled, a RETRY_EXC of a WR of
  // the settled size steps the size down by linear_step (never below the block). A WR posted
  // again after its QP's recovery meets the failed attempt's packets still queued at the
  // bottleneck, so a size that succeeded from an empty queue can fail on every repost.
  bool back_off_when_settled = false;
};

struct VirtuosoConfig {
  uint32_t paths = 1;
  // Path i sends from local GID index first_alias + i to the peer's alias of the same index
  // (IP aliases: index 0 is the host's own address, kept for the UD control channel).
  uint32_t first_alias = 1;
  uint64_t block = 4096;            // memory is divided into blocks; every split is in whole blocks
  uint64_t small_send = 16 * 1024;  // MP SENDs up to this go whole, as one SEND on one path
  uint64_t max_wr_bytes = 1u << 30;  // a constituent WR's largest size (RDMA: below 2^31)
  uint64_t max_message = uint64_t{1} << 40;
  uint32_t max_send_wr = 64;          // per path QP: constituent WRs in flight (lossless)
  uint32_t receive_slots = 64;        // per path QP: the library's staging receives
  bool probe = true;                  // measure path capacities before the first MP WR
  uint64_t probe_bytes = 512 * 1024;  // "at least 512 KB" per path
  // Ours, not the paper's: once the capacities are known (probed or cached), each path QP's
  // NIC rate limiter is set to its path's estimate, so that the NIC, which serves its QPs in
  // turns, does not underfeed a fast path while slow paths' WRs hold it. Needs probe.
  bool pace_paths = false;
  uint32_t mtu = 4096;
  uint8_t rc_timeout = 14;  // 4.096 us * 2^14 = 67 ms
  uint8_t rc_retry_cnt = 7;
  Time control_interval = Time::ms(1);  // receive adverts and PSN resyncs are repeated this often
  uint32_t control_attempts = 100;
  ChunkSearchConfig chunk_search{};

  // Throws Error naming the bad value.
  void validate() const;
};

}  // namespace bifrost::transport::virtuoso
