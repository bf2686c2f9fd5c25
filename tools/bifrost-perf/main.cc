// bifrost-perf: perftest for the bifrost soft RNIC over real UDP. Server and client take the
// same flags; the client adds the server's address:
//   bifrost-perf write_bw --bind 10.0.0.2              (server)
//   bifrost-perf write_bw 10.0.0.2 --verify            (client)
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/real/offer_json.h"
#include "bifrost/transport/cc/cc_config.h"
#include "bifrost/transport/rpc.h"
#include "report.h"
#include "runs.h"
#include "session.h"

namespace bifrost::perf {

// A Bifröst connection is a message channel with one-sided operations: write_bw/send_bw
// stream messages through Connection::send, read_bw streams Connection::read from the server's
// buffer, send_lat ping-pongs messages; the QP type is the transport's business.
void validate_bifrost(const Options& o) {
  if (o.test == "write_lat" || o.test == "read_lat") {
    throw Error(
        "{} cannot run over --transport {}: a Bifröst connection's one-sided operations are "
        "timed by read_bw; use send_lat (message ping-pong)",
        o.test, o.transport);
  }
  if (o.connection_given) {
    throw Error(
        "-c cannot be combined with --transport {}: the transport chooses its QPs ({} "
        "QPs); drop -c",
        o.transport, o.transport == "bifrost-uc" ? "UC" : "RC");
  }
  if (o.is_rpc() && o.verify && (o.size < 8 || o.response_bytes(o.size) < 8)) {
    throw Error(
        "rpc_bw --verify needs requests and responses of 8 bytes or more (each carries its "
        "index in its first 8 bytes)");
  }
  if (o.read_threshold > 0 && !o.is_rpc()) {
    throw Error("--read_threshold is rpc_bw's (read_bw moves every message by READ)");
  }
  if (o.is_rpc() && o.max_size() > (1u << 22) - transport::kRpcHeaderBytes) {
    throw Error(
        "-s/--response_size {} does not fit one RPC: a Bifröst message is at most 4194304 "
        "bytes, of which the RPC header takes {}",
        o.max_size(), transport::kRpcHeaderBytes);
  }
  if (o.verify && !o.all_sizes && o.size < 8) {
    throw Error(
        "--verify over a Bifröst transport needs -s 8 or more (each message carries "
        "its index in its first 8 bytes)");
  }
  if (o.op() == Op::send && o.max_size() > (1u << 16)) {
    throw Error(
        "send_bw over --transport {} sends every message as one SEND into a receive slot: "
        "-s {} is above the 65536 a slot holds; use write_bw for larger messages",
        o.transport, o.max_size());
  }
  if (o.max_size() > (1u << 22)) {
    throw Error("-s {} is larger than a Bifröst message can be (4194304 bytes)", o.max_size());
  }
}

// RoGUE takes the verbs the bare-QP tests post, over one RC or UC QP (plus a shadow) per -q.
void validate_rogue(const Options& o) {
  if (o.connection_given) {
    throw Error("-c cannot be combined with --transport {}: the transport names the QP type",
                o.transport);
  }
  if (o.transport == "rogue-uc" && o.op() == Op::read) {
    throw Error("{} needs --transport rogue-rc: UC has no RDMA READ", o.test);
  }
  if (o.op() == Op::send && o.max_size() > (1u << 16)) {
    throw Error(
        "{} over --transport {}: a SEND is never cut into segments and must land whole in one "
        "of the receiver library's receives (64 KiB); -s {} is larger, use write_bw",
        o.test, o.transport, o.max_size());
  }
}

// Virtuoso takes MP WRITE, READ and SEND over RC QPs, one per path; its tests post MP WRs.
void validate_virtuoso(const Options& o) {
  if (o.connection_given) {
    throw Error("-c cannot be combined with --transport virtuoso: every path is an RC QP");
  }
  if (o.is_latency() || o.is_rpc()) {
    throw Error("{} cannot run over --transport virtuoso: use write_bw, read_bw or send_bw",
                o.test);
  }
  if (o.verify && !o.all_sizes && o.size < 8) {
    throw Error(
        "--verify over --transport virtuoso needs -s 8 or more (each message carries its index "
        "in its first 8 bytes)");
  }
}

void validate(const Options& o) {
  const bool known = o.test == "write_bw" || o.test == "send_bw" || o.test == "read_bw" ||
                     o.test == "write_lat" || o.test == "send_lat" || o.test == "read_lat" ||
                     o.test == "write0_lat" || o.test == "rpc_bw";
  if (!known) {
    throw Error(
        "unknown test '{}': use write_bw, send_bw, read_bw, write_lat, send_lat, read_lat, "
        "write0_lat or rpc_bw",
        o.test);
  }
  if (o.is_rpc() && !o.uses_bifrost()) {
    throw Error(
        "{} needs --transport bifrost-uc or bifrost-rc: the RPC helper runs over a Bifröst "
        "connection",
        o.test);
  }
  if (o.is_write0() && (o.transport != "rc" || o.connection != "RC" || o.all_sizes)) {
    throw Error(
        "write0_lat is a zero-byte WRITE on a bare RC QP: it needs --transport rc, -c RC and no "
        "-a (RoGUE and Bifröst take no empty verbs)");
  }
  if (o.depth == 0 || o.depth > 4096) throw Error("--depth {} is invalid: use 1..4096", o.depth);
  if (o.transport != "rc" && !o.uses_bifrost() && !o.uses_rogue() && !o.uses_virtuoso()) {
    throw Error(
        "unknown --transport '{}': use rc, bifrost-uc, bifrost-rc, rogue-rc, rogue-uc or "
        "virtuoso",
        o.transport);
  }
  if (o.paths == 0 || o.paths > 64) throw Error("--paths {} is invalid: use 1..64", o.paths);
  if (o.paths != 1 && !o.uses_virtuoso()) {
    throw Error("--paths needs --transport virtuoso (the other transports use one path)");
  }
  if (o.uses_bifrost()) validate_bifrost(o);
  if (o.uses_rogue()) validate_rogue(o);
  if (o.uses_virtuoso()) validate_virtuoso(o);
  if (o.connection != "RC" && o.connection != "UC" && o.connection != "UD") {
    throw Error("unknown connection type '{}': use RC, UC or UD", o.connection);
  }
  if (o.connection == "UD" && !o.uses_bifrost()) {
    // UD carries single-packet SENDs only, as in perftest.
    if (o.op() != Op::send)
      throw Error("{} needs RC or UC: UD has SEND only (send_bw, send_lat)", o.test);
    if (o.max_size() > o.mtu) {
      throw Error("-s {} does not fit one UD packet: a UD message is at most the MTU ({})",
                  o.max_size(), o.mtu);
    }
  }
  if (o.connection == "UC" && o.op() == Op::read) {
    throw Error("{} needs RC: UC has no RDMA READ", o.test);
  }
  if (o.mtu < 256 || o.mtu > 4096 || (o.mtu & (o.mtu - 1)) != 0) {
    throw Error("--mtu {} is invalid: use 256, 512, 1024, 2048 or 4096", o.mtu);
  }
  if (o.size == 0 || o.size > (1u << 30)) throw Error("-s {} is invalid: use 1..2^30", o.size);
  if (o.qps == 0 || o.qps > 1024) throw Error("-q {} is invalid: use 1..1024", o.qps);
  if (o.is_latency() && o.qps != 1) throw Error("latency tests use one QP: drop -q");
  if (o.is_latency() && o.duration > 0) throw Error("latency tests count iterations: use -n");
  if (o.busy_poll && o.events) throw Error("--busy_poll and -e contradict each other: pick one");
  if (o.tx_depth == 0) throw Error("-t must be at least 1");
  if (o.timeout <= 0) throw Error("--timeout must be positive");
  if (o.ack_every == 0 || o.ack_every > 32) {
    throw Error("--ack_every {} is invalid: a software ACK carries 1 to 32 WQEs", o.ack_every);
  }
  if (o.ack_bytes == 0 || o.ack_timer_us <= 0) {
    throw Error("--ack_bytes and --ack_timer must be positive");
  }
  if (o.base_rtt_us <= 0 || o.min_rto_us <= 0 || o.line_rate_gbps <= 0) {
    throw Error("--base_rtt, --min_rto and --line_rate must be positive");
  }
}

namespace {

std::vector<uint32_t> sizes_of(const Options& o) {
  if (o.is_write0()) return {0};  // -s sizes the buffer only
  if (!o.all_sizes) return {o.size};
  std::vector<uint32_t> sizes;
  for (uint32_t s = o.min_size(); s <= o.max_size(); s *= 2) sizes.push_back(s);
  return sizes;
}

// --config paper: the Bifröst flags the command line does not give take TransportConfig::
// paper()'s values (the RTO floor stays this tool's: it covers the soft NIC's send queue).
void take_paper_defaults(const CLI::App& app, Options& o) {
  const transport::TransportConfig paper = transport::TransportConfig::paper();
  const auto given = [&](const char* flag) { return app.count(flag) > 0; };
  if (!given("--base_rtt")) o.base_rtt_us = paper.base_rtt.microseconds();
  if (!given("--chunk_loss_budget")) o.chunk_loss_budget = paper.chunk_loss_budget;
  if (!given("--ack_every")) o.ack_every = paper.ack_every_wqes;
  if (!given("--ack_bytes")) o.ack_bytes = paper.ack_every_bytes;
  if (!given("--ack_timer")) o.ack_timer_us = paper.ack_timer.microseconds();
  if (!given("--hint_when_idle")) o.hint_when_idle = paper.hint_when_idle;
}

// A spinning process on a host with no idle core waits for the scheduler's tick (4 ms at
// 250 Hz) whenever it is preempted: latency tails of whole milliseconds that are the host's, not
// the network's. Measured on 2 cores at load 7: write0_lat p99 16-27 ms spinning, 0.16 ms with -e.
void warn_if_spinning_on_a_busy_host(const Options& o) {
  if (!o.spins()) return;
  double load = 0;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (getloadavg(&load, 1) != 1 || cpus <= 0 || load < static_cast<double>(cpus)) return;
  fmt::print(stderr,
             "bifrost-perf: warning: spinning on a busy host (load {:.1f} on {} CPUs): "
             "preemptions will show as millisecond tails; -e sleeps on events instead\n",
             load, cpus);
}

int run(const Options& o) {
  validate(o);
  warn_if_spinning_on_a_busy_host(o);
  if (o.is_client()) {
    fmt::print(stderr, "bifrost-perf: connecting to {}:{}\n", o.server, o.port);
  } else {
    fmt::print(stderr, "bifrost-perf: waiting for a client on {}:{}\n",
               o.bind.empty() ? "0.0.0.0" : o.bind, o.port);
  }
  Session session(o);
  print_banner(session);
  print_table_header(o);
  RunResults results;
  if (o.is_client()) {
    try {
      for (const uint32_t size : sizes_of(o)) {
        results.sizes.push_back(run_client_size(session, size, results));
        print_row(o, results.sizes.back());
      }
      session.channel().send({{"phase", "bye"}});
    } catch (const Error& e) {
      session.channel().send_error(e.what());
      throw;
    }
  } else {
    try {
      results = run_server(session);
    } catch (const Error& e) {
      session.channel().send_error(e.what());
      throw Error("{} (the client went away or failed mid-transfer)", e.what());
    }
    for (const SizeResult& r : results.sizes) print_row(o, r);
  }
  results.local_counters = local_counters(session);
  for (const auto& offer : session.mine().offers) results.offers.push_back(real::to_json(offer));
  for (const auto& offer : session.peer().offers) {
    results.peer_offers.push_back(real::to_json(offer));
  }
  for (const auto& offer : session.mine().mp_offers) results.offers.push_back(real::to_json(offer));
  for (const auto& offer : session.peer().mp_offers) {
    results.peer_offers.push_back(real::to_json(offer));
  }
  results.cpu_seconds = process_cpu_seconds();
  print_footer(o, results);
  if (!o.out_json.empty()) write_json(o.out_json, o, results);
  if (results.corrupt > 0) {
    fmt::print(stderr, "bifrost-perf: {} corrupt messages\n", results.corrupt);
    return 3;
  }
  return 0;
}

}  // namespace
}  // namespace bifrost::perf

int main(int argc, char** argv) {
  using bifrost::perf::Options;
  std::signal(SIGPIPE, SIG_IGN);
  Options o;
  CLI::App app{"bifrost-perf: perftest-style RDMA benchmarks over the bifrost soft RNIC"};
  app.add_option(
         "test", o.test,
         "write_bw | send_bw | read_bw | write_lat | send_lat | read_lat | write0_lat | rpc_bw")
      ->required();
  app.add_option("server", o.server, "server address (client only); omit to be the server");
  app.add_option("-s,--size", o.size, "message size in bytes")->capture_default_str();
  app.add_flag("-a,--all", o.all_sizes, "run sizes 2 B .. 8 MiB");
  app.add_option("-n,--iters", o.iterations, "messages per QP (5000 bw, 1000 lat)");
  app.add_option("-D,--duration", o.duration, "run for this many seconds (bandwidth tests)");
  app.add_option("-q,--qp", o.qps, "number of QPs")->capture_default_str();
  app.add_option("-c,--connection", o.connection, "RC | UC")->capture_default_str();
  app.add_option("--transport", o.transport,
                 "rc | bifrost-uc | bifrost-rc | rogue-rc | rogue-uc | virtuoso (bare verbs, "
                 "Bifröst, RoGUE, Virtuoso multi-path)")
      ->capture_default_str();
  app.add_flag("--report_gbits", o.report_gbits, "report bandwidth in Gb/s");
  app.add_option("--out_json", o.out_json, "write results as JSON to this file");
  app.add_flag("--verify", o.verify, "check the content of every message end to end");
  app.add_option("-m,--mtu", o.mtu, "path MTU in bytes")->capture_default_str();
  app.add_option("-B,--bind", o.bind,
                 "local address (RoCE GID and bootstrap); default: the control connection's");
  app.add_option("-p,--port", o.port, "TCP port of the bootstrap")->capture_default_str();
  app.add_option("-t,--tx-depth", o.tx_depth, "messages in flight per QP")->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds without progress before giving up")
      ->capture_default_str();
  app.add_option("--qp_timeout", o.qp_timeout,
                 "plain RC and RoGUE RC: ACK timeout exponent (4.096 us * 2^x; 0 = infinite)")
      ->check(CLI::Range(0, 31))
      ->default_str(std::to_string(o.qp_timeout));  // a uint8_t would print as a character
  app.add_option("--bifrost_rc_timeout", o.bifrost_rc_timeout,
                 "Bifröst RC: the data QPs' ACK timeout exponent (a timeout moves the connection "
                 "to a backup QP)")
      ->check(CLI::Range(1, 31))
      ->default_str(std::to_string(o.bifrost_rc_timeout));
  app.add_option("--base_rtt", o.base_rtt_us, "Bifröst: base RTT in microseconds (CC target, BDP)")
      ->capture_default_str();
  app.add_option("--min_rto", o.min_rto_us, "Bifröst: minimum retransmission timeout, microseconds")
      ->capture_default_str();
  app.add_option(
         "--line_rate", o.line_rate_gbps,
         "Bifröst and RoGUE: line rate in Gb/s (Bifröst's BDP; RoGUE's segment, rate step and "
         "limiter ceiling)")
      ->capture_default_str();
  app.add_option("--ack_every", o.ack_every,
                 "Bifröst: WQEs a software ACK coalesces (1: one ACK per WQE)")
      ->capture_default_str();
  app.add_option("--chunking", o.chunking,
                 "Bifröst: cut large messages into chunks (0: one WRITE per message)")
      ->capture_default_str();
  app.add_option("--ack_bytes", o.ack_bytes, "Bifröst: bytes a software ACK coalesces")
      ->capture_default_str();
  app.add_option("--ack_timer", o.ack_timer_us,
                 "Bifröst: the receiver's longest wait before a software ACK, microseconds")
      ->capture_default_str();
  app.add_option("--config", o.config,
                 "Bifröst: start from the product default or the paper's configuration "
                 "(TransportConfig::paper(); the Bifröst flags not given take its values)")
      ->check(CLI::IsMember({"default", "paper"}))
      ->capture_default_str();
  app.add_option("--chunk_loss_budget", o.chunk_loss_budget,
                 "Bifröst: while losses are seen, chunks shrink so that about this fraction of "
                 "the bytes is sent again (0: chunks ignore loss)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--depth", o.depth, "rpc_bw: requests outstanding per connection")
      ->capture_default_str();
  app.add_option("--response_size", o.response_size,
                 "rpc_bw: response bytes (default: the request's size)");
  app.add_option("--read_threshold", o.read_threshold,
                 "rpc_bw: requests larger than this many bytes go as a 16-byte descriptor the "
                 "server pulls with an RDMA READ, as ARDMA moves large requests (0: every "
                 "request is a message)")
      ->capture_default_str();
  app.add_option("--hint_when_idle", o.hint_when_idle,
                 "Bifröst: hint bit also on the tail of a burst (0: only the window's last WQE, "
                 "A.1.2)")
      ->capture_default_str();
  app.add_option("--ack_priority", o.ack_priority,
                 "Bifröst: software ACKs in a class above the data's (0: the data's class)")
      ->capture_default_str();
  app.add_option("--cc", o.cc,
                 "Bifröst: software congestion control, swift | swift-md | dcqcn | vegas | none "
                 "(dcqcn reacts to CE marks: it needs --ecn on both sides and a marking "
                 "bottleneck)")
      ->capture_default_str()
      ->check([](const std::string& name) {
        try {
          (void)bifrost::transport::parse_cc_kind(name);
          return std::string();
        } catch (const bifrost::Error& e) {
          return std::string(e.what());
        }
      });
  app.add_option("--loss_gate", o.loss_gate,
                 "Bifröst swift: a loss cuts the window only with a queue or more loss than "
                 "random corruption explains (0: every loss cuts, the paper's rule)")
      ->capture_default_str();
  app.add_option("--rogue_segment", o.rogue_segment,
                 "RoGUE: segment bytes large verbs are cut into (0: 64 KiB at <= 10 Gb/s "
                 "--line_rate, 256 KiB at >= 100 Gb/s, 128 KiB between)")
      ->capture_default_str();
  app.add_option("--rogue_batch", o.rogue_batch,
                 "RoGUE: bytes per signalled batch (0: one segment)")
      ->capture_default_str();
  app.add_option("--rogue_shadow", o.rogue_shadow,
                 "RoGUE RC: a shadow QP takes over a failed QP (0: the verbs wait for its resync)")
      ->capture_default_str();
  app.add_option("--rogue_pace", o.rogue_pace,
                 "RoGUE: pace each QP's NIC rate limiter at cwnd / base RTT (0: the window only)")
      ->capture_default_str();
  app.add_option("--rogue_signal_cost_us", o.rogue_signal_cost_us,
                 "RoGUE: modelled host CPU per signal it handles for itself, delaying its next "
                 "post (0: off; the real runtime pays its real costs)")
      ->capture_default_str();
  app.add_option("--rogue_clock_read_cost_us", o.rogue_clock_read_cost_us,
                 "RoGUE: modelled cost of the NIC clock read before each batch (0: off)")
      ->capture_default_str();
  app.add_option("--rogue_trace", o.rogue_trace,
                 "RoGUE: write every congestion-control event (samples, rate changes, posting "
                 "stops) of every connection to this CSV file");
  app.add_option("--paths", o.paths,
                 "Virtuoso: paths per connection, one RC QP each from local alias i to the "
                 "peer's alias i (needs that many addresses besides the main one: "
                 "scripts/testbed.sh --paths K)")
      ->capture_default_str();
  app.add_option("--virtuoso_probe", o.virtuoso_probe,
                 "Virtuoso: measure each path with a probe WRITE before the first MP WR and split "
                 "by the measured capacities (0: equal split)")
      ->capture_default_str();
  app.add_option("--probe_bytes", o.probe_bytes,
                 "Virtuoso: bytes of each path's probe WRITE (at least 512 KiB, as the paper's)")
      ->check(CLI::Range(uint64_t{512 * 1024}, uint64_t{1} << 30))
      ->capture_default_str();
  app.add_flag("--ecn", o.ecn,
               "send data packets ECN-capable (ECT(0)); the receiving NIC reports CE marks to "
               "the transport");
  app.add_flag("--busy_poll", o.busy_poll, "spin instead of sleeping (the default for _lat)");
  app.add_flag("-e,--events", o.events,
               "sleep until packets or timers are due, also in _lat tests (perftest's -e); on a "
               "host with fewer idle cores than spinning processes this avoids tails of whole "
               "scheduler ticks");
  app.add_flag("--gso", o.gso,
               "send runs of datagrams with UDP GSO and receive with GRO (faster; the segments' "
               "IP ids differ from what the ICRC assumes, so only a bifrost peer accepts them)");
  CLI11_PARSE(app, argc, argv);
  o.connection_given = app.count("-c") > 0;
  if (o.config == "paper") bifrost::perf::take_paper_defaults(app, o);
  try {
    return bifrost::perf::run(o);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bifrost-perf: error: {}\n", e.what());
    return 1;
  }
}
