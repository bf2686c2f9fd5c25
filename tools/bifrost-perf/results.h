#pragma once
// What a bifrost-perf run measured, for the table, the JSON file and the peer.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/real/clock.h"

namespace bifrost::perf {

struct SizeResult {
  uint32_t bytes = 0;
  uint64_t iterations = 0;  // messages completed (all QPs) or round trips
  double seconds = 0;
  // Bandwidth tests: MB/s (10^6 bytes) and millions of messages per second.
  double bw_peak_mbps = 0;
  double bw_avg_mbps = 0;
  double msg_rate_mpps = 0;
  // Latency tests: one-way time (half the round trip) in microseconds.
  double t_min = 0, t_max = 0, t_typical = 0, t_avg = 0, t_stdev = 0, t_p99 = 0, t_p999 = 0;
  double t_p10 = 0, t_p90 = 0;  // JSON only (RoGUE's Table 1 reports p10/p50/p90)
  // rpc_bw: the transport's own RTT samples (eq. 1), the newest one looked at on each response
  // whenever the connection took a new sample since the last look, in microseconds.
  uint64_t eq1_samples = 0;
  double eq1_p50 = 0, eq1_p99 = 0, eq1_p999 = 0;
  // rpc_bw: per software ACK for the requests (A.4 / Fig. 16), microseconds: the server's ACK
  // delay T3' - T2 and the client's local delay from the ACK's arrival T4 to processing it.
  uint64_t acks_timed = 0;
  double ack_delay_p50 = 0, ack_delay_p99 = 0, local_delay_p50 = 0, local_delay_p99 = 0;
};

// A client's run of one size: the result row, and what it checked itself (echoes, READs,
// RPC responses).
struct ClientOutcome {
  SizeResult result;
  uint64_t verified = 0;
  uint64_t corrupt = 0;
};

// What the receiving side saw, sent back to the client at the end of every size.
struct PeerStats {
  uint64_t verified = 0;  // messages whose content was checked and correct
  uint64_t corrupt = 0;
  uint64_t duplicates = 0;  // Bifröst: messages delivered more than once
  uint64_t delivered = 0;   // Bifröst: deliveries, duplicates included
  nlohmann::json counters = nlohmann::json::object();
};

struct RunResults {
  std::vector<SizeResult> sizes;
  uint64_t verified = 0;  // checked here or at the peer
  uint64_t corrupt = 0;
  uint64_t missing = 0;     // verified messages the peer never saw (UC under loss)
  uint64_t duplicates = 0;  // messages the peer got more than once (Bifröst)
  double cpu_seconds = 0;
  nlohmann::json local_counters = nlohmann::json::object();
  nlohmann::json peer_counters = nlohmann::json::object();
  // Bifröst: this side's and the peer's connection offers (QPNs, first PSNs), for wire checks.
  nlohmann::json offers = nlohmann::json::array();
  nlohmann::json peer_offers = nlohmann::json::array();
};

nlohmann::json to_json(const SizeResult& r);
using real::process_cpu_seconds;  // user + system CPU of this process so far
SizeResult size_result_from_json(const nlohmann::json& j);

}  // namespace bifrost::perf
