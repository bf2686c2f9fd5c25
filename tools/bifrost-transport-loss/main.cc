// bifrost-transport-loss: goodput of one Bifröst connection under random loss, per message size.
//
//   bifrost-transport-loss --mode uc,rc --size 1024,65536,1048576 --loss 0.000244,0.000977
//
// Two soft RNICs (sim::TransportPair) are joined by a LossyWire that drops each packet with the
// given probability in both directions. The application keeps --depth messages of --size bytes
// outstanding on one connection (I/O depth) and sends the next one from each completion.
// Goodput is the payload of the messages completed after the warm-up divided by the simulated
// time, as a fraction of the line rate; every delivery is checked byte for byte against what
// was sent. Plain RC over the same wire is bifrost-rnic-loss --engine gbn (the same harness
// without the transport); experiments/bifrost-loss-throughput/ runs both.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/transport_pair.h"

namespace {

using namespace bifrost;

struct Options {
  std::vector<std::string> modes{"uc"};
  std::vector<uint64_t> sizes{65536};
  std::vector<double> losses{1.0 / 1024};
  uint32_t depth = 8;
  double rate_gbps = 100;
  double rtt_us = 6;
  uint32_t mtu = 4096;
  uint32_t unit = 4096;
  double chunk_loss_budget = transport::TransportConfig{}.chunk_loss_budget;
  std::string cc = "swift";
  double base_rtt_us = 0;  // 0: the wire's RTT
  double min_rto_us = 500;
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
  c.transport.reliability = reliability_of(mode);
  c.transport.mtu = o.mtu;
  c.transport.unit_size = o.unit;
  c.transport.chunk_loss_budget = o.chunk_loss_budget;
  c.transport.cc.kind = transport::parse_cc_kind(o.cc);
  c.transport.min_rto = Time::from_seconds(o.min_rto_us * 1e-6);
  c.transport.base_rtt = Time::from_seconds((o.base_rtt_us > 0 ? o.base_rtt_us : o.rtt_us) * 1e-6);
  c.transport.line_rate_bps = static_cast<uint64_t>(o.rate_gbps * 1e9);
  c.endpoint.seed = o.seed;
  sim::TransportPair pair(c);
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
  pair.side(1).connection->set_delivery_handler([&](const transport::Delivery& d) {
    // Which slot it came from is not known here; any slot's content must match one of them.
    bool intact = false;
    for (uint32_t i = 0; i < o.depth && !intact; ++i) {
      intact = rnic::same_content(*d.memory, d.addr, *a.app,
                                  sim::TransportPair::kAppBase + i * size, d.length);
    }
    p.corrupt += intact ? 0 : 1;
  });
  // Each completion posts the slot's next message, until the end of the run.
  struct Loop {
    sim::TransportPair& pair;
    uint64_t size;
    Time warmup;
    Time end;
    uint64_t& completed;
    void post(uint32_t slot) {
      sim::TransportPair::Side& a = pair.side(0);
      a.connection->send(
          transport::MessageBuffer{.region = a.app_region,
                                   .addr = sim::TransportPair::kAppBase + slot * size,
                                   .length = size},
          [this, slot](const transport::SendCompletion& done) {
            if (done.completed >= warmup && done.completed <= end) ++completed;
            if (pair.kernel().now() < end) post(slot);
          });
    }
  } loop{pair, size, warmup, end, p.messages};
  for (uint32_t slot = 0; slot < o.depth; ++slot) loop.post(slot);
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
  app.add_option("--mode,-m", o.modes, "uc (software reliability over UC), rc (NIC RC + failover)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--size,-s", o.sizes, "message sizes, bytes")->delimiter(',');
  app.add_option("--loss,-l", o.losses, "loss probability per packet, each direction")
      ->delimiter(',');
  app.add_option("--depth", o.depth, "messages kept outstanding (I/O depth)")
      ->capture_default_str();
  app.add_option("--rate-gbps", o.rate_gbps, "line rate")->capture_default_str();
  app.add_option("--rtt-us", o.rtt_us, "base RTT (twice the one-way delay)")->capture_default_str();
  app.add_option("--mtu", o.mtu, "path MTU")->capture_default_str();
  app.add_option("--unit", o.unit, "transport unit (minimum chunk)")->capture_default_str();
  app.add_option("--chunk-loss-budget", o.chunk_loss_budget,
                 "while losses are seen, chunks shrink to resend about this fraction (0: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option(
         "--cc", o.cc,
         "software congestion control: swift, swift-md, dcqcn, vegas, timely, dctcp or none")
      ->capture_default_str();
  app.add_option("--base-rtt-us", o.base_rtt_us,
                 "the transport's base RTT (CC target, BDP); 0: --rtt-us")
      ->capture_default_str();
  app.add_option("--min-rto-us", o.min_rto_us, "floor of the retransmission timeout")
      ->capture_default_str();
  app.add_option("--duration-us", o.duration_us, "simulated time per point")->capture_default_str();
  app.add_option("--warmup-us", o.warmup_us, "completions before this are not counted")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "wire and endpoint seed")->capture_default_str();
  app.add_option("--csv", o.csv_file, "write the results as CSV");
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
