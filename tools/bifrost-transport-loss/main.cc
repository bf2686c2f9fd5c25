// bifrost-transport-loss: goodput of one Bifröst connection under random loss, per message size.
//
//   bifrost-transport-loss --mode uc,rc --size 1024,65536,1048576 --loss 0.000244,0.000977
//   bifrost-transport-loss --config paper --rate-gbps 25 --mtu 1024 --loss-on data ...
//
// Two soft RNICs (sim::TransportPair) are joined by a LossyWire that drops each packet with the
// given probability in both directions, or only in the data's (--loss-on data: client to
// server, as the Bifröst paper's Fig. 7 drops on the ToR port toward the server). The application
// keeps --depth messages of --size bytes outstanding on one connection (I/O depth) and sends the
// next one from each completion. Goodput is the payload of the messages completed after the warm-up
// divided by the simulated time, as a fraction of the line rate; every delivery is checked byte for
// byte against what was sent. Plain RC over the same wire is bifrost-rnic-loss --engine gbn (the
// same harness without the transport); experiments/bifrost-loss-throughput/ runs both.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/transport_pair.h"
#include "bifrost/transport/rpc.h"

namespace {

using namespace bifrost;

struct Options {
  // The starting configuration: the product "default" (TransportConfig{}) or the Bifröst
  // paper's ("paper", TransportConfig::paper()). The flags below override it only when given.
  std::string config = "default";
  std::string loss_on = "both";  // "both" directions, or only the "data" direction
  std::vector<std::string> modes{"uc"};
  std::vector<uint64_t> sizes{65536};
  std::vector<double> losses{1.0 / 1024};
  uint32_t depth = 8;
  double rate_gbps = 100;
  double rtt_us = 6;
  uint32_t mtu = 4096;
  // Unset: the starting configuration's.
  std::optional<uint32_t> unit;
  std::optional<double> chunk_loss_budget;
  std::optional<std::string> cc;
  std::optional<double> base_rtt_us;  // unset: the wire's RTT (default) or 50 us (paper)
  std::optional<double> min_rto_us;
  std::optional<bool> tail_probe;                   // TransportConfig::tail_probe
  std::optional<bool> tail_probe_learns;            // TransportConfig::tail_probe_learns
  std::optional<bool> send_threshold_follows_loss;  // and send_threshold_follows_loss
  std::optional<bool> loss_needs_queuing;           // Swift's (SwiftParams::loss_needs_queuing)
  std::optional<bool> loss_gate;                    // Swift's (SwiftParams::loss_gate)
  std::optional<double> random_loss_tolerance;      // and its two settings
  std::optional<double> loss_gate_memory;
  // Set: each message is an RPC request answered by a response of this many bytes, and a slot
  // of the I/O depth is free again when the response is back (the paper's RPC benchmark).
  // Unset: one-way messages, a slot free when the sender sees the message complete.
  std::optional<uint64_t> response_bytes;
  // A CSV of every RTT sample the sender takes (time, sample, window after it), per point.
  std::string trace_file;
  double duration_us = 20000;
  double warmup_us = 500;
  uint64_t seed = 1;
  std::string csv_file;
  bool quiet = false;
};

struct Point {
  std::string mode;
  uint64_t size = 0;
  double loss = 0;
  double goodput = 0;  // fraction of the line rate
  uint64_t messages = 0;
  uint64_t corrupt = 0;
  transport::SenderStats sender;
  transport::ReceiverStats receiver;
};

transport::Reliability reliability_of(const std::string& mode) {
  if (mode == "uc") return transport::Reliability::software_uc;
  if (mode == "rc") return transport::Reliability::hardware_rc;
  throw Error("unknown --mode '{}' (uc: Bifröst over UC, rc: Bifröst over RC)", mode);
}

Point run(const Options& o, const std::string& mode, uint64_t size, double loss) {
  sim::TransportPairConfig c;
  c.wire.rate = Rate::bps(static_cast<int64_t>(o.rate_gbps * 1e9));
  c.wire.delay = Time::from_seconds(o.rtt_us * 1e-6 / 2);
  c.wire.loss = loss;
  c.wire.seed = o.seed;
  const bool paper = o.config == "paper";
  c.transport = paper ? transport::TransportConfig::paper() : transport::TransportConfig{};
  c.transport.reliability = reliability_of(mode);
  c.transport.mtu = o.mtu;
  c.transport.line_rate_bps = static_cast<uint64_t>(o.rate_gbps * 1e9);
  if (o.unit) c.transport.unit_size = *o.unit;
  if (o.chunk_loss_budget) c.transport.chunk_loss_budget = *o.chunk_loss_budget;
  if (o.cc) c.transport.cc.kind = transport::parse_cc_kind(*o.cc);
  if (o.loss_needs_queuing) c.transport.cc.swift.params.loss_needs_queuing = *o.loss_needs_queuing;
  if (o.loss_gate) c.transport.cc.swift.params.loss_gate = *o.loss_gate;
  if (o.random_loss_tolerance) {
    c.transport.cc.swift.params.random_loss_tolerance = *o.random_loss_tolerance;
  }
  if (o.loss_gate_memory) c.transport.cc.swift.params.loss_gate_memory = *o.loss_gate_memory;
  if (o.min_rto_us) c.transport.min_rto = Time::from_seconds(*o.min_rto_us * 1e-6);
  if (o.tail_probe) c.transport.tail_probe = *o.tail_probe;
  if (o.tail_probe_learns) c.transport.tail_probe_learns = *o.tail_probe_learns;
  if (o.send_threshold_follows_loss) {
    c.transport.send_threshold_follows_loss = *o.send_threshold_follows_loss;
  }
  // The product default takes the wire's RTT as its base RTT; the paper's is 50 us.
  if (o.base_rtt_us) {
    c.transport.base_rtt = Time::from_seconds(*o.base_rtt_us * 1e-6);
  } else if (!paper) {
    c.transport.base_rtt = Time::from_seconds(o.rtt_us * 1e-6);
  }
  c.endpoint.seed = o.seed;
  sim::TransportPair pair(c);
  if (o.loss_on == "data") pair.wire().set_loss(1, 0);  // side 1 (the server) sends only ACKs
  sim::TransportPair::Side& a = pair.side(0);
  if (size > a.connection->config().max_message_size()) {
    throw Error("--size {} is above the largest message ({} B)", size,
                a.connection->config().max_message_size());
  }
  // One buffer per outstanding slot, each with its own content.
  for (uint32_t i = 0; i < o.depth; ++i) {
    a.app->fill(sim::TransportPair::kAppBase + i * size, size, i + 1);
  }
  Point p;
  p.mode = mode;
  p.size = size;
  p.loss = loss;
  const Time warmup = Time::from_seconds(o.warmup_us * 1e-6);
  const Time end = Time::from_seconds(o.duration_us * 1e-6);
  const auto intact = [&](const transport::Delivery& d) {
    // Which slot it came from is not known here; any slot's content must match one of them.
    for (uint32_t i = 0; i < o.depth; ++i) {
      if (rnic::same_content(*d.memory, d.addr, *a.app, sim::TransportPair::kAppBase + i * size,
                             d.length)) {
        return true;
      }
    }
    return false;
  };
  const auto counted = [&](Time completed) { return completed >= warmup && completed <= end; };
  const auto request = [&](uint32_t slot) {
    return transport::MessageBuffer{
        .region = a.app_region, .addr = sim::TransportPair::kAppBase + slot * size, .length = size};
  };
  std::function<void(uint32_t)> post;
  std::unique_ptr<transport::RpcChannel> client;
  std::unique_ptr<transport::RpcChannel> server;
  if (o.response_bytes) {
    // The paper's RPC benchmark: a slot is free again when its response is back.
    client = std::make_unique<transport::RpcChannel>(*a.connection);
    server = std::make_unique<transport::RpcChannel>(*pair.side(1).connection);
    const transport::MessageBuffer response{.region = pair.side(1).app_region,
                                            .addr = sim::TransportPair::kAppBase,
                                            .length = *o.response_bytes};
    server->serve([&, response](const transport::RpcRequest& r) {
      p.corrupt += intact(r.body) ? 0 : 1;
      return response;
    });
    post = [&](uint32_t slot) {
      client->call(request(slot), [&, slot](const transport::RpcResponse& r) {
        if (r.status != transport::RpcStatus::ok) throw Error("an RPC failed");
        if (counted(r.completed)) ++p.messages;
        if (pair.kernel().now() < end) post(slot);
      });
    };
  } else {
    // One-way messages: a slot is free again when the sender sees its message complete.
    pair.side(1).connection->set_delivery_handler(
        [&](const transport::Delivery& d) { p.corrupt += intact(d) ? 0 : 1; });
    post = [&](uint32_t slot) {
      a.connection->send(request(slot), [&, slot](const transport::SendCompletion& done) {
        if (counted(done.completed)) ++p.messages;
        if (pair.kernel().now() < end) post(slot);
      });
    };
  }
  std::ofstream trace;
  if (!o.trace_file.empty()) {
    trace.open(fmt::format("{}.{}-{}-{}.csv", o.trace_file, mode, size, loss));
    if (!trace) throw Error("cannot write the trace {}", o.trace_file);
    trace << "time_us,rtt_us,window_bytes\n";
    a.connection->set_rtt_observer([&](Time sample) {
      trace << fmt::format("{:.3f},{:.3f},{}\n", pair.kernel().now().microseconds(),
                           sample.microseconds(), a.connection->window_bytes());
    });
  }
  for (uint32_t slot = 0; slot < o.depth; ++slot) post(slot);
  pair.kernel().run_until(end);
  const double seconds = (end - warmup).seconds();
  p.goodput = static_cast<double>(p.messages * size) * 8 / seconds / (o.rate_gbps * 1e9);
  p.sender = a.connection->sender_stats();
  p.receiver = pair.side(1).connection->receiver_stats();
  return p;
}

std::string csv_header() {
  return "mode,size,loss,goodput,messages,corrupt,retransmitted_wqes,losses_detected,timeouts,"
         "tail_probes,acks,failovers";
}

std::string csv_row(const Point& p) {
  return fmt::format("{},{},{},{:.4f},{},{},{},{},{},{},{},{}", p.mode, p.size, p.loss, p.goodput,
                     p.messages, p.corrupt, p.sender.retransmitted_wqes, p.sender.losses_detected,
                     p.sender.timeouts, p.sender.tail_probes, p.receiver.acks_sent,
                     p.sender.failovers);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Goodput of one Bifröst connection under random loss, per message size"};
  app.add_option("--config", o.config,
                 "starting configuration: the product default, or the Bifröst paper's (§4.1)")
      ->check(CLI::IsMember({"default", "paper"}))
      ->capture_default_str();
  app.add_option("--loss-on", o.loss_on,
                 "which packets the loss hits: both directions, or only the data's (client to "
                 "server; ACKs always arrive)")
      ->check(CLI::IsMember({"both", "data"}))
      ->capture_default_str();
  app.add_option("--mode,-m", o.modes, "uc (software reliability over UC), rc (NIC RC + failover)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--size,-s", o.sizes, "message sizes, bytes")->delimiter(',');
  app.add_option("--loss,-l", o.losses, "loss probability per packet, each direction")
      ->delimiter(',');
  app.add_option("--response-bytes", o.response_bytes,
                 "RPC pattern: each message is a request answered with this many bytes, and "
                 "the I/O depth counts requests whose response is not back (default: one-way "
                 "messages)");
  app.add_option("--depth", o.depth, "messages kept outstanding (I/O depth)")
      ->capture_default_str();
  app.add_option("--rate-gbps", o.rate_gbps, "line rate")->capture_default_str();
  app.add_option("--rtt-us", o.rtt_us, "base RTT (twice the one-way delay)")->capture_default_str();
  app.add_option("--mtu", o.mtu, "path MTU")->capture_default_str();
  app.add_option("--unit", o.unit, "transport unit (minimum chunk); default: the config's 4096");
  app.add_option("--chunk-loss-budget", o.chunk_loss_budget,
                 "while losses are seen, chunks shrink to resend about this fraction (0: off); "
                 "default: 0.05, the paper config 0")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option(
      "--cc", o.cc,
      "software congestion control: swift, swift-md, dcqcn, vegas, timely, dctcp or none; "
      "default: swift");
  app.add_option("--base-rtt-us", o.base_rtt_us,
                 "the transport's base RTT (CC target, BDP); default: --rtt-us, the paper config "
                 "50 us");
  app.add_option("--loss-needs-queuing", o.loss_needs_queuing,
                 "swift: a loss cuts the window only while the RTT shows a queue (true), or "
                 "always (false, the default and the paper's rule)");
  app.add_option("--loss-gate", o.loss_gate,
                 "swift: a loss cuts the window only if the RTT shows a queue or the loss rate "
                 "exceeds what random loss explains (true), or as --loss-needs-queuing says "
                 "(false); default: the configuration's");
  app.add_option("--random-loss-tolerance", o.random_loss_tolerance,
                 "swift's loss gate: the packet loss rate taken for corruption, at most");
  app.add_option("--loss-gate-memory", o.loss_gate_memory,
                 "swift's loss gate: delivered packets its loss rate is averaged over");
  app.add_option("--min-rto-us", o.min_rto_us,
                 "floor of the retransmission timeout; default: 500 us");
  app.add_option("--tail-probe", o.tail_probe,
                 "a hinted tail unacknowledged after ~2 srtt is resent (off in the paper's "
                 "configuration: the RTO finds it); default: the configuration's");
  app.add_option("--tail-probe-learns", o.tail_probe_learns,
                 "the tail probe learns its delay and from its outcome (docs/transport.md); "
                 "default: the configuration's");
  app.add_option("--send-threshold-follows-loss", o.send_threshold_follows_loss,
                 "over UC, while losses are seen, messages above the loss budget go as WRITE "
                 "chunks; default: the configuration's");
  app.add_option("--duration-us", o.duration_us, "simulated time per point")->capture_default_str();
  app.add_option("--warmup-us", o.warmup_us, "completions before this are not counted")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "wire and endpoint seed")->capture_default_str();
  app.add_option("--csv", o.csv_file, "write the results as CSV");
  app.add_option("--trace", o.trace_file,
                 "write every RTT sample and the window after it to PREFIX.MODE-SIZE-LOSS.csv");
  app.add_flag("--quiet,-q", o.quiet, "no progress lines on stderr");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<Point> points;
    fmt::print("{}\n", csv_header());
    for (const std::string& mode : o.modes) {
      for (const uint64_t size : o.sizes) {
        for (const double loss : o.losses) {
          if (!o.quiet) fmt::print(stderr, "running {} size {} loss {}\n", mode, size, loss);
          points.push_back(run(o, mode, size, loss));
          fmt::print("{}\n", csv_row(points.back()));
          if (points.back().corrupt > 0)
            throw Error("corrupt deliveries at {}", csv_row(points.back()));
        }
      }
    }
    if (!o.csv_file.empty()) {
      std::ofstream out(o.csv_file);
      if (!out) throw Error("cannot write {}", o.csv_file);
      out << csv_header() << "\n";
      for (const Point& p : points) out << csv_row(p) << "\n";
    }
  } catch (const Error& e) {
    fmt::print(stderr, "bifrost-transport-loss: {}\n", e.what());
    return 1;
  }
  return 0;
}
