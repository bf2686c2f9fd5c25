#include "report.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "bifrost/core/error.h"

namespace bifrost::rnic_loss {

nlohmann::json to_json(const Result& r) {
  return {{"engine", rnic::recovery::to_string(r.engine)},
          {"loss", r.loss},
          {"goodput_gbps", r.goodput_gbps},
          {"goodput_fraction", r.goodput_fraction},
          {"acked_goodput_fraction", r.acked_goodput_fraction},
          {"ceiling_fraction", r.ceiling_fraction},
          {"packets_per_rtt", r.packets_per_rtt},
          {"messages", r.messages},
          {"bytes", r.bytes},
          {"verified", r.verified},
          {"verify_failures", r.verify_failures},
          {"qp_error", r.qp_error},
          {"qp_error_at_us", r.qp_error_at_us},
          {"longest_gap_us", r.longest_gap_us},
          {"last_completion_us", r.last_completion_us},
          {"data_packets_sent", r.data_sent},
          {"data_packets_lost", r.data_lost},
          {"ack_packets_sent", r.acks_sent},
          {"ack_packets_lost", r.acks_lost},
          {"retransmitted", r.retransmitted},
          {"timeouts", r.timeouts},
          {"naks_sent", r.naks},
          {"sacks_sent", r.sacks},
          {"fnacks_sent", r.fnacks},
          {"rx_dropped_sequence", r.rx_dropped_sequence},
          {"rx_out_of_order", r.rx_out_of_order},
          {"pipeline_drops", r.pipeline_drops},
          {"pipeline_stalls", r.pipeline_stalls},
          {"fast_recoveries", r.fast_recoveries},
          {"slow_recoveries", r.slow_recoveries},
          {"fast_path_packets", r.fast_path_packets},
          {"slow_path_packets", r.slow_path_packets},
          {"pool_fallbacks", r.pool_fallbacks},
          {"pool_peak_blocks", r.pool_peak_blocks},
          {"cache_hits", r.cache_hits},
          {"cache_misses", r.cache_misses},
          {"cache_contexts", r.cache_contexts},
          {"requester_cache_hits", r.requester_cache_hits},
          {"requester_cache_misses", r.requester_cache_misses},
          {"qp_fairness", r.qp_fairness},
          {"qp_min_fraction", r.qp_min_fraction},
          {"events", r.events},
          {"simulated_us", r.simulated_us},
          {"wall_seconds", r.wall_seconds}};
}

namespace {

// Which packets --loss-on lets the loss hit. Under READ the data are the responses, which
// travel with the responder's NAKs and SACKs; the other direction carries the READ requests.
std::string lossy_directions(const Options& o) {
  if (mixed(o)) {
    return "both directions (WRITE data and READ requests; READ responses; ACK/NAK/SACK of "
           "each)";
  }
  const bool read = wr_opcode(o) == rnic::WrOpcode::rdma_read;
  if (o.loss_on == "data") {
    return read ? "the responder's direction only (READ responses, NAK/SACK; READ requests "
                  "never lost)"
                : "the data's direction only (ACK/NAK/SACK never lost)";
  }
  return read ? "both directions (READ requests; READ responses and NAK/SACK)"
              : "both directions (data and ACK/NAK/SACK)";
}

}  // namespace

nlohmann::json scenario_json(const Options& o) {
  nlohmann::json s = {
      {"message_bytes", o.message_bytes},
      {"opcode", o.opcode},
      {"clients", o.clients},
      {"rate_gbps", o.rate_gbps},
      {"rtt_us", o.rtt_us},
      {"one_way_delay_us", one_way_delay(o).microseconds()},
      {"mtu", o.mtu},
      {"duration_us", o.duration_us},
      {"warmup_us", o.warmup_us},
      {"outstanding", o.outstanding},
      {"qps", o.qps},
      {"start_spread_us", o.start_spread_us},
      {"ack_every_packets", o.ack_every},
      {"ack_delay_us", o.ack_delay_us},
      {"burst_packets", o.burst_packets},
      {"loss_applies_to",
       fmt::format("{}, {}", lossy_directions(o),
                   o.burst_len > 1 ? "Gilbert bursts per direction" : "independently per packet")},
      {"burst_len", o.burst_len},
      {"qp_rate_gbps", o.qp_rate_gbps},
      {"gbn_timeout", o.gbn_timeout},
      {"gbn_qp_timeout_us", 4.096 * std::ldexp(1.0, o.gbn_timeout)},
      {"gbn_min_rto_us", o.gbn_min_rto_us},
      {"read_gap", o.read_gap},
      {"retry_cnt", o.retry_cnt},
      {"bdp_packets", o.bdp_packets},
      {"rto_low_us", o.rto_low_us},
      {"rto_high_us", o.rto_high_us},
      {"lean_sr_header", o.lean_sr_header},
      {"pipeline", pipeline_modelled(o)},
      {"srnic_stall_ns", o.srnic_stall_ns},
      {"seed", o.seed},
  };
  if (o.context_cache_bytes > 0) {
    s["context_cache_bytes"] = o.context_cache_bytes;
    s["cache_miss_ns"] = o.cache_miss_ns;
    s["context_fetches"] = o.context_fetches;
  }
  if (pipeline_modelled(o)) {
    s["pipeline_gbps"] = o.pipeline_gbps;
    s["pipeline_per_packet_ns"] = o.pipeline_per_packet_ns;
    s["pipeline_buffer_kib"] = o.pipeline_buffer_kib;
  }
  return s;
}

void write_csv(const std::string& path, const Options& o, const std::vector<Result>& results) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write {}: check that its folder exists and is writable", path);
  out << "engine,loss,goodput_gbps,goodput_fraction,ceiling_fraction,messages,timeouts,"
         "retransmitted,data_packets_sent,data_packets_lost,ack_packets_lost,naks_sent,"
         "sacks_sent,pipeline_drops,pipeline_stalls,verify_failures,qp_error,gbn_timeout,"
         "gbn_min_rto_us,pipeline,duration_us,longest_gap_us,last_completion_us,"
         "fast_recoveries,slow_recoveries,fast_path_packets,slow_path_packets,pool_fallbacks,qps,"
         "cache_hits,cache_misses,"
         "cache_contexts,qp_fairness,qp_min_fraction,acked_goodput_fraction,fnacks_sent\n";
  for (const Result& r : results) {
    out << fmt::format(
        "{},{},{:.4f},{:.5f},{:.5f},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.1f},{:.1f},"
        "{},{},{},{},{},{},{},{},{},{:.5f},{:.5f},{:.5f},{}\n",
        rnic::recovery::to_string(r.engine), r.loss, r.goodput_gbps, r.goodput_fraction,
        r.ceiling_fraction, r.messages, r.timeouts, r.retransmitted, r.data_sent, r.data_lost,
        r.acks_lost, r.naks, r.sacks, r.pipeline_drops, r.pipeline_stalls, r.verify_failures,
        r.qp_error, o.gbn_timeout, o.gbn_min_rto_us, pipeline_modelled(o), o.duration_us,
        r.longest_gap_us, r.last_completion_us, r.fast_recoveries, r.slow_recoveries,
        r.fast_path_packets, r.slow_path_packets, r.pool_fallbacks, o.qps, r.cache_hits,
        r.cache_misses, r.cache_contexts, r.qp_fairness, r.qp_min_fraction,
        r.acked_goodput_fraction, r.fnacks);
  }
}

void print_table(const std::vector<Result>& results) {
  fmt::print(
      "{:<6} {:>8} {:>9} {:>7} {:>7} {:>9} {:>8} {:>8} {:>8} {:>9} {:>11} {:>7} {:>7} {:>9}\n",
      "engine", "loss", "Gb/s", "line%", "max%", "retx%", "timeouts", "naks", "sacks", "pipe-drop",
      "max-gap-us", "errors", "fast%", "ctx-miss%");
  for (const Result& r : results) {
    const double retx =
        r.data_sent == 0 ? 0 : 100.0 * static_cast<double>(r.retransmitted) / r.data_sent;
    // FaSR: the share of recovery episodes that stayed on the fast path.
    const uint64_t episodes = r.fast_recoveries + r.slow_recoveries;
    const std::string fast =
        episodes == 0 ? "-"
                      : fmt::format("{:.1f}%", 100.0 * static_cast<double>(r.fast_recoveries) /
                                                   static_cast<double>(episodes));
    const uint64_t accesses = r.cache_hits + r.cache_misses;
    const std::string misses =
        r.cache_contexts == 0 || accesses == 0
            ? "-"
            : fmt::format("{:.1f}%", 100.0 * static_cast<double>(r.cache_misses) /
                                         static_cast<double>(accesses));
    fmt::print(
        "{:<6} {:>7.3g}% {:>9.2f} {:>6.1f}% {:>6.1f}% {:>8.1f}% {:>8} {:>8} {:>8} {:>9} {:>11.1f} "
        "{:>7} {:>7} {:>9}\n",
        rnic::recovery::to_string(r.engine), r.loss * 100, r.goodput_gbps, r.goodput_fraction * 100,
        r.ceiling_fraction * 100, retx, r.timeouts, r.naks, r.sacks, r.pipeline_drops,
        r.longest_gap_us, r.qp_error.empty() ? "-" : r.qp_error, fast, misses);
  }
}

// The longest retransmission timeout the engine may wait.

}  // namespace bifrost::rnic_loss
