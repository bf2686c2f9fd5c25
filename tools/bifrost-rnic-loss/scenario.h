#pragma once
// bifrost-rnic-loss's scenario: the options a point runs with, what it measures, and the
// timing derived from them.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/work_request.h"

namespace bifrost::rnic_loss {

using rnic::recovery::EngineKind;

struct Options {
  std::vector<std::string> engines{"all"};
  std::vector<double> losses{0.01};
  uint32_t message_bytes = 8192;
  double rate_gbps = 100;
  double rtt_us = 6;
  uint32_t mtu = 1024;
  double duration_us = 20000;
  double warmup_us = 100;
  uint32_t outstanding = 64;
  // write, send, read, or mixed: odd-numbered QP pairs READ, even ones WRITE (the FaSR paper's
  // server "issues RD/WR requests" to its clients).
  std::string opcode = "write";
  // Side a is the requester (the paper's server); side b stands for this many client NICs: its
  // QP-context cache and receive pipeline are `clients` times a's, as N NICs each holding 1/N of
  // the QPs would have between them. Both share a's one wire, the server's port.
  uint32_t clients = 1;
  double burst_len = 1;  // mean loss burst, line-rate packet slots; 1 = independent loss
  // Which packets the loss hits: "both" directions (data, and ACKs, SACKs, NAKs the other way),
  // or only the direction that carries the "data" (requests, or READ responses).
  std::string loss_on = "both";
  double qp_rate_gbps = 0;  // per-QP pacing; 0 = line rate
  // Connected QP pairs, each keeping `outstanding` work requests posted (FaSR's Fig. 7(b)/(c)).
  uint32_t qps = 1;
  // RC responder ACK interval in packets (DataPathConfig::ack_every_packets; 0: AckReq only).
  uint32_t ack_every = 8;
  // NIC transmit scheduler: packets per QP turn (DataPathConfig::burst_packets; 1: packet
  // round-robin).
  uint32_t burst_packets = 1;
  // The pairs start one after another, evenly over this time (0: all at once).
  double start_spread_us = 0;
  // RC responder: the longest an in-order packet waits for its ACK (DataPathConfig::ack_delay;
  // 0: no bound).
  double ack_delay_us = 8;
  // GBN. The QP timeout attribute is set on every QP, but only GBN uses it (IRN and SRNIC have
  // their own RTO_low/RTO_high). 14 is NicPairConfig's default: 4.096 us * 2^14 = 67 ms.
  int gbn_timeout = 14;
  double gbn_min_rto_us = 0;
  // GBN READ requester: "reissue" a READ from its first missing response at once, or wait for
  // the QP "timeout" (DataPathConfig::read_gap_waits_for_timeout).
  std::string read_gap = "reissue";
  int retry_cnt = 7;
  // IRN / SRNIC (RecoveryConfig defaults).
  uint32_t bdp_packets = 128;
  double rto_low_us = 100;
  double rto_high_us = 320;
  // FaSR: charge the paper's lean SR extensions (6 to 14 B) instead of 24 B.
  bool lean_sr_header = false;
  // Receive pipeline (off unless --pipeline).
  bool pipeline = false;
  double pipeline_gbps = 110;
  double pipeline_per_packet_ns = 0;
  uint64_t pipeline_buffer_kib = 256;
  double srnic_stall_ns = 1200;
  // QP-context cache on both NICs (0: not modelled); implies the receive pipeline, whose
  // stalls are the misses' cost.
  uint64_t context_cache_bytes = 0;
  double cache_miss_ns = 1000;
  uint32_t context_fetches = 0;  // QpContextCacheConfig::concurrent_fetches
  uint32_t verify_every = 16;
  uint64_t seed = 1;
  std::string json_file;
  std::string csv_file;
  bool quiet = false;
};

struct Result {
  EngineKind engine = EngineKind::gbn;
  double loss = 0;
  double goodput_gbps = 0;
  double goodput_fraction = 0;  // of the line rate
  // Goodput from the packets acknowledged in the window (each QP's oldest unacknowledged PSN at
  // its ends, times the mean payload per packet): unlike whole messages it has no edge effect,
  // which with thousands of QPs each holding messages in flight would swamp the window.
  double acked_goodput_fraction = 0;
  double ceiling_fraction = 0;  // loss-free payload / wire bytes of this engine's packets
  // Data packets the QP sends in one base RTT at its rate (the line rate, or --qp-rate-gbps),
  // counting the average wire size of this engine's packets.
  double packets_per_rtt = 0;
  uint64_t messages = 0;  // completed after the warm-up
  uint64_t bytes = 0;
  uint64_t verified = 0;
  uint64_t verify_failures = 0;
  std::string qp_error;  // first non-success completion status, if any
  double qp_error_at_us = 0;
  // The longest time without any completion (from the start, or the last completion, to the
  // next one or the end): a QP that stopped making progress shows here.
  double longest_gap_us = 0;
  double last_completion_us = 0;
  uint64_t data_sent = 0;  // packets on the wire, requester -> responder (incl. retransmissions)
  uint64_t data_lost = 0;
  uint64_t acks_sent = 0;  // responder -> requester
  uint64_t acks_lost = 0;
  uint64_t retransmitted = 0;
  uint64_t timeouts = 0;
  uint64_t naks = 0;
  uint64_t sacks = 0;
  uint64_t fnacks = 0;  // FaSR: lost retransmissions the receiver detected and FNACKed
  uint64_t rx_dropped_sequence = 0;
  uint64_t rx_out_of_order = 0;
  uint64_t pipeline_drops = 0;
  uint64_t pipeline_stalls = 0;
  // FaSR's receiver (the pool's path statistics; zero for the other engines).
  uint64_t fast_recoveries = 0;
  uint64_t slow_recoveries = 0;
  uint64_t fast_path_packets = 0;
  uint64_t slow_path_packets = 0;
  uint64_t pool_fallbacks = 0;
  uint32_t pool_peak_blocks = 0;
  // The receiver's QP-context cache (hits count every access when no cache is modelled).
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  uint64_t cache_contexts = 0;  // contexts the cache holds; 0 = not modelled
  // The requester's (server's) cache: with READs its responses and with WRITEs its ACKs look
  // up the requester's contexts.
  uint64_t requester_cache_hits = 0;
  uint64_t requester_cache_misses = 0;
  // Spread of goodput across QPs (messages completed after the warm-up, per QP).
  double qp_fairness = 1;      // Jain's index
  double qp_min_fraction = 1;  // the slowest QP's messages / the mean
  uint64_t events = 0;
  double simulated_us = 0;
  double wall_seconds = 0;
};

Time microseconds(double us);
Rate gigabits(double gbps);
// QP pair q's opcode (with --opcode mixed, READ for odd q).
rnic::WrOpcode wr_opcode(const Options& o, uint32_t q = 0);
inline bool mixed(const Options& o) {
  return o.opcode == "mixed";
}
// The wire side (sim::NicPair: 0 sends a's packets) whose packets carry the data: b for READ.
// Not defined for --opcode mixed, whose data go both ways.
int data_side(const Options& o);
// The payload/wire ratio of one message's request packets: the goodput a loss-free link can
// reach. Selective engines add the SR extension header to every request.
double ceiling_fraction(const Options& o, bool selective, bool lean_sr_header);
// Serialization of one MTU data frame at the line rate.
Time slot_time(const Options& o);
// One-way delay such that an MTU data frame plus its ACK make one base RTT; throws Error when
// the RTT is too short for that.
Time one_way_delay(const Options& o);
// The receive pipeline is modelled: asked for, or needed by the context cache's misses.
inline bool pipeline_modelled(const Options& o) {
  return o.pipeline || o.context_cache_bytes > 0;
}
// The longest retransmission timeout the engine may wait.
double largest_rto_us(const Options& o, EngineKind engine);

}  // namespace bifrost::rnic_loss
