#include "report.h"

#include <fmt/core.h>

#include <fstream>

#include "bifrost/core/error.h"
#include "bifrost/real/json_fields.h"

namespace bifrost::perf {
namespace {

constexpr const char* kRule =
    "---------------------------------------------------------------------------------------";

std::string title(const Options& o) {
  if (o.is_rpc()) return "RPC BW Test (request/response, transport::RpcChannel)";
  const std::string op = o.op() == Op::write  ? "RDMA_Write"
                         : o.op() == Op::send ? "Send"
                                              : "RDMA_Read";
  return fmt::format("{} {} Test", op, o.is_latency() ? "Latency" : "BW");
}

void print_address(const char* who, const real::PeerInfo& info, size_t qp) {
  fmt::print(" {} address: QPN {:#06x} PSN {:#08x} RKey {:#010x} VAddr {:#016x}\n GID: {}\n", who,
             info.qps.at(qp).qpn, info.qps.at(qp).psn, info.rkey, info.buffer_va,
             world::to_string(info.ip));
}

void print_offer(const char* who, const transport::ConnectionOffer& o) {
  std::string qps;
  for (const auto& q : o.qps) qps += fmt::format(" {:#06x}/{:#08x}", q.qpn, q.first_psn);
  fmt::print(
      " {} connection {}: UD QPN {:#06x} QKey {:#010x} GID {}\n   QPN/PSN (primary, backups):{}\n",
      who, o.connection_id, o.ud_qpn, o.qkey, world::to_string(o.ip), qps);
}

uint64_t counter(const nlohmann::json& j, const char* key) {
  return j.contains(key) ? real::integer_field<uint64_t>(j, key) : 0;
}

// What an RPC costs beyond the wire: software ACKs (both directions: the server's for the
// requests, the client's for the responses) and CPU of both processes (whole process, so the
// bootstrap's few milliseconds are in it), per request answered.
struct RpcCost {
  uint64_t requests = 0;
  double acks_per_request = 0;
  double cpu_here = 0;
  double cpu_peer = 0;
  double cpu_us_per_request = 0;
};

RpcCost rpc_cost(const RunResults& r) {
  RpcCost c;
  for (const SizeResult& s : r.sizes) c.requests += s.iterations;
  const auto acks = [](const nlohmann::json& counters) {
    return counter(counters.value("transport", nlohmann::json::object()), "acks_sent");
  };
  const uint64_t total_acks = acks(r.local_counters) + acks(r.peer_counters);
  c.cpu_here = r.cpu_seconds;
  c.cpu_peer = r.peer_counters.value("cpu_seconds", 0.0);
  if (c.requests > 0) {
    const auto n = static_cast<double>(c.requests);
    c.acks_per_request = static_cast<double>(total_acks) / n;
    c.cpu_us_per_request = (c.cpu_here + c.cpu_peer) / n * 1e6;
  }
  return c;
}

// RoGUE's own counters (rogue_verbs.h), here / at the peer.
void print_rogue(const nlohmann::json& t, const nlohmann::json& p) {
  fmt::print(
      " RoGUE batches   : {} / {} batches, {} / {} signals, {} / {} segments for {} / {} verbs\n",
      counter(t, "batches"), counter(p, "batches"), counter(t, "signals"), counter(p, "signals"),
      counter(t, "segments_posted"), counter(p, "segments_posted"), counter(t, "verbs_posted"),
      counter(p, "verbs_posted"));
  fmt::print(
      " RoGUE CC        : {} / {} RTT samples, {} / {} held off, {} / {} discarded (<= 0), {} / "
      "{} rate updates; WRITE window {:.0f} B, rate {:.2f} Gb/s at the end (here)\n",
      counter(t, "rtt_samples"), counter(p, "rtt_samples"), counter(t, "held_off_samples"),
      counter(p, "held_off_samples"), counter(t, "discarded_samples"),
      counter(p, "discarded_samples"), counter(t, "rate_updates"), counter(p, "rate_updates"),
      t.value("write_window_bytes_mean", 0.0), t.value("write_rate_gbps_mean", 0.0));
  fmt::print(
      " RoGUE recovery  : {} / {} shadow switches, {} / {} resyncs, {} / {} lost echoes, {} / {} "
      "sample timeouts, {} / {} duplicates suppressed, {} / {} verbs failed\n",
      counter(t, "shadow_switches"), counter(p, "shadow_switches"), counter(t, "resyncs"),
      counter(p, "resyncs"), counter(t, "lost_echoes"), counter(p, "lost_echoes"),
      counter(t, "sample_timeouts"), counter(p, "sample_timeouts"),
      counter(t, "duplicates_suppressed"), counter(p, "duplicates_suppressed"),
      counter(t, "verbs_failed"), counter(p, "verbs_failed"));
}

// Virtuoso's counters (virtuoso_runs.h), here / at the peer, and this side's paths.
void print_virtuoso(const nlohmann::json& t, const nlohmann::json& p) {
  fmt::print(
      " Virtuoso work   : {} / {} MP WRs, {} / {} WRs posted, {} / {} CQEs, {} / {} wake-ups, "
      "{} / {} MP RECVs\n",
      counter(t, "mp_wrs"), counter(p, "mp_wrs"), counter(t, "wrs_posted"),
      counter(p, "wrs_posted"), counter(t, "cqes"), counter(p, "cqes"), counter(t, "wakeups"),
      counter(p, "wakeups"), counter(t, "mp_receives"), counter(p, "mp_receives"));
  fmt::print(" Virtuoso paths  : {} / {} probes, {} / {} RETRY_EXC, {} / {} recoveries\n",
             counter(t, "probes"), counter(p, "probes"), counter(t, "retry_exceeded"),
             counter(p, "retry_exceeded"), counter(t, "recoveries"), counter(p, "recoveries"));
  for (const auto& c : t.value("connections", nlohmann::json::array())) {
    for (const auto& path : c.at("paths")) {
      fmt::print("   path {} -> {} (UDP source port {}): {:.3f} Gb/s probed\n",
                 path.at("local").get<std::string>(), path.at("peer").get<std::string>(),
                 path.at("source_port").get<int>(), path.at("capacity_gbps").get<double>());
    }
  }
}

}  // namespace

void print_banner(Session& s) {
  const Options& o = s.options();
  fmt::print("{}\n{:>20}{}\n", kRule, "", title(o));
  if (o.uses_bifrost()) {
    fmt::print(" Connections     : {:<16}Transport type : Bifröst over the soft RNIC ({})\n", o.qps,
               o.transport);
    fmt::print(" Connection type : {:<16}Using SRQ      : OFF\n",
               o.transport == "bifrost-uc" ? "UC + soft ACKs" : "RC + backups");
  } else if (o.uses_rogue()) {
    fmt::print(" Connections     : {:<16}Transport type : RoGUE over the soft RNIC ({})\n", o.qps,
               o.transport);
    fmt::print(" Connection type : {:<16}Using SRQ      : OFF\n",
               o.transport == "rogue-rc" ? (o.rogue_shadow ? "RC + shadow" : "RC") : "UC");
  } else if (o.uses_virtuoso()) {
    fmt::print(" Connections     : {:<16}Transport type : Virtuoso over the soft RNIC\n", o.qps);
    fmt::print(" Paths           : {:<16}Connection type: RC, one QP per path\n", o.paths);
  } else {
    fmt::print(" Number of qps   : {:<16}Transport type : bifrost soft RNIC ({})\n", o.qps,
               o.transport);
    fmt::print(" Connection type : {:<16}Using SRQ      : OFF\n", o.connection);
  }
  fmt::print(" {} : {}\n", o.is_rpc() ? "I/O depth      " : "TX depth       ",
             o.is_latency() ? 1
             : o.is_rpc()   ? o.depth
                            : std::min(o.tx_depth, s.slots()));
  if (o.is_rpc()) {
    fmt::print(" Response size   : {}[B]\n", o.response_bytes(o.size));
    if (o.read_threshold > 0) {
      fmt::print(" Requests > {}[B] : pulled by the server with RDMA READ\n", o.read_threshold);
    }
  }
  fmt::print(" Mtu             : {}[B]\n", o.mtu);
  fmt::print(" Link type       : Ethernet (RoCEv2, UDP 4791)\n");
  fmt::print(" Data ex. method : TCP (bootstrap protocol {})\n", real::kBootstrapVersion);
  fmt::print(" Verify          : {}\n", o.verify ? "ON (every message)" : "OFF");
  fmt::print("{}\n", kRule);
  for (size_t i = 0; i < s.mine().offers.size(); ++i) {
    print_offer("local", s.mine().offers[i]);
    print_offer("remote", s.peer().offers[i]);
  }
  for (size_t qp = 0; qp < s.mine().qps.size(); ++qp) {
    print_address("local", s.mine(), qp);
    print_address("remote", s.peer(), qp);
  }
  fmt::print("{}\n", kRule);
}

void print_table_header(const Options& o) {
  if (o.is_rpc()) {
    fmt::print(
        " #bytes     #requests     Requests/s     RTT avg[usec]   p50[usec]    p99[usec]    "
        "p99.9[usec]\n");
    return;
  }
  if (o.is_latency()) {
    fmt::print(
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
        "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n");
    return;
  }
  const char* unit = o.report_gbits ? "Gb/sec" : "MB/sec";
  fmt::print(" #bytes     #iterations    BW peak[{}]    BW average[{}]   MsgRate[Mpps]\n", unit,
             unit);
}

void print_row(const Options& o, const SizeResult& r) {
  if (o.is_rpc()) {
    fmt::print(" {:<10} {:<10}    {:<12.0f}   {:<10.2f}      {:<10.2f}   {:<10.2f}   {:<10.2f}\n",
               r.bytes, r.iterations, r.msg_rate_mpps * 1e6, r.t_avg, r.t_typical, r.t_p99,
               r.t_p999);
  } else if (o.is_latency()) {
    fmt::print(
        " {:<6} {:<10}     {:<10.2f}     {:<10.2f}   {:<10.2f}       {:<10.2f}     "
        "{:<10.2f}      {:<10.2f}             {:<10.2f}\n",
        r.bytes, r.iterations, r.t_min, r.t_max, r.t_typical, r.t_avg, r.t_stdev, r.t_p99,
        r.t_p999);
  } else {
    const double scale = o.report_gbits ? 8.0 / 1000.0 : 1.0;
    fmt::print(" {:<10} {:<10}       {:<14.2f}     {:<14.2f}       {:.6f}\n", r.bytes, r.iterations,
               r.bw_peak_mbps * scale, r.bw_avg_mbps * scale, r.msg_rate_mpps);
  }
  std::fflush(stdout);
}

void print_footer(const Options& o, const RunResults& r) {
  fmt::print("{}\n", kRule);
  const nlohmann::json& local = r.local_counters;
  const nlohmann::json& peer = r.peer_counters;
  fmt::print(" retransmissions : {} here, {} at the peer (timeouts {} / {})\n",
             counter(local, "retransmissions"), counter(peer, "retransmissions"),
             counter(local, "timeouts"), counter(peer, "timeouts"));
  fmt::print(
      " drops seen      : out-of-sequence {} / {}, socket overflow {} / {}, bad packets "
      "{} / {} (here / peer)\n",
      counter(local, "rx_dropped_sequence"), counter(peer, "rx_dropped_sequence"),
      counter(local, "udp_rx_kernel_drops"), counter(peer, "udp_rx_kernel_drops"),
      counter(local, "udp_rx_malformed") + counter(local, "udp_rx_bad_icrc") +
          counter(local, "udp_rx_truncated"),
      counter(peer, "udp_rx_malformed") + counter(peer, "udp_rx_bad_icrc") +
          counter(peer, "udp_rx_truncated"));
  if (local.contains("transport")) {
    const nlohmann::json& t = local["transport"];
    const nlohmann::json& pt = peer.value("transport", nlohmann::json::object());
    fmt::print(
        " transport       : retransmitted WQEs {} / {}, timeouts {} / {}, tail probes {} / {}, "
        "losses detected {} / {}, failovers {} / {} (here / peer)\n",
        counter(t, "retransmitted_wqes"), counter(pt, "retransmitted_wqes"), counter(t, "timeouts"),
        counter(pt, "timeouts"), counter(t, "tail_probes"), counter(pt, "tail_probes"),
        counter(t, "losses_detected"), counter(pt, "losses_detected"), counter(t, "failovers"),
        counter(pt, "failovers"));
    fmt::print(
        " soft ACKs       : {} / {} sent, {} / {} received; duplicate WQEs suppressed {} / {}\n",
        counter(t, "acks_sent"), counter(pt, "acks_sent"), counter(t, "acks_received"),
        counter(pt, "acks_received"), counter(t, "duplicates"), counter(pt, "duplicates"));
    // The loss rate the chunking saw at the end: while it is above 0, chunks are capped at
    // about chunk_loss_budget / rate packets.
    fmt::print(" chunks          : {} / {} WRITE chunks, loss estimate {:.3f}% / {:.3f}%\n",
               counter(t, "chunks"), counter(pt, "chunks"),
               100 * t.value("loss_rate_estimate", 0.0), 100 * pt.value("loss_rate_estimate", 0.0));
  }
  if (local.contains("rogue")) print_rogue(local["rogue"], peer.value("rogue", nlohmann::json{}));
  if (local.contains("virtuoso")) {
    print_virtuoso(local["virtuoso"], peer.value("virtuoso", nlohmann::json{}));
  }
  if (o.is_rpc()) {
    const RpcCost cost = rpc_cost(r);
    fmt::print(
        " RPC cost        : {:.3f} software ACKs per request ({} + {} sent here / at the peer), "
        "CPU {:.2f} + {:.2f} s = {:.2f} us per request\n",
        cost.acks_per_request,
        counter(local.value("transport", nlohmann::json::object()), "acks_sent"),
        counter(peer.value("transport", nlohmann::json::object()), "acks_sent"), cost.cpu_here,
        cost.cpu_peer, cost.cpu_us_per_request);
    fmt::print(
        " socket queueing : mean {:.1f} / {:.1f} us from kernel arrival to the NIC (here / peer)\n",
        local.value("udp_rx_queueing_mean_us", 0.0), peer.value("udp_rx_queueing_mean_us", 0.0));
    for (const SizeResult& s : r.sizes) {
      fmt::print(
          " transport RTT   : {} eq. (1) samples looked at, p50 {:.2f} / p99 {:.2f} / "
          "p99.9 {:.2f} us ({} B)\n",
          s.eq1_samples, s.eq1_p50, s.eq1_p99, s.eq1_p999, s.bytes);
    }
  }
  if (o.verify) {
    fmt::print(" verified        : {} messages intact, {} corrupt, {} missing", r.verified,
               r.corrupt, r.missing);
    if (o.uses_bifrost()) fmt::print(", {} delivered twice", r.duplicates);
    fmt::print("\n");
  }
  fmt::print(" CPU time        : {:.2f} s (user + system, this process)\n", r.cpu_seconds);
  fmt::print("{}\n", kRule);
}

void write_json(const std::string& path, const Options& o, const RunResults& r) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const SizeResult& s : r.sizes) sizes.push_back(to_json(s));
  nlohmann::json doc = {{"test", o.test},
                        {"role", o.is_client() ? "client" : "server"},
                        {"connection", o.connection},
                        {"transport", o.transport},
                        {"mtu", o.mtu},
                        {"qps", o.qps},
                        {"verify", o.verify},
                        {"results", sizes},
                        {"verified", r.verified},
                        {"corrupt", r.corrupt},
                        {"missing", r.missing},
                        {"duplicates", r.duplicates},
                        {"cpu_seconds", r.cpu_seconds},
                        {"counters", r.local_counters},
                        {"peer_counters", r.peer_counters},
                        {"offers", r.offers},
                        {"peer_offers", r.peer_offers}};
  if (o.is_rpc()) {
    const RpcCost cost = rpc_cost(r);
    doc["rpc"] = {{"depth", o.depth},
                  {"response_bytes", o.response_bytes(o.size)},
                  {"config", o.config},
                  {"chunking", o.chunking},
                  {"ack_every", o.ack_every},
                  {"ack_bytes", o.ack_bytes},
                  {"ack_timer_us", o.ack_timer_us},
                  {"hint_when_idle", o.hint_when_idle},
                  {"read_threshold", o.read_threshold},
                  {"requests", cost.requests},
                  {"acks_per_request", cost.acks_per_request},
                  {"cpu_seconds_here", cost.cpu_here},
                  {"cpu_seconds_peer", cost.cpu_peer},
                  {"cpu_us_per_request", cost.cpu_us_per_request}};
  }
  std::ofstream out(path);
  if (!out) throw Error("cannot write {}", path);
  out << doc.dump(2) << "\n";
}

}  // namespace bifrost::perf
