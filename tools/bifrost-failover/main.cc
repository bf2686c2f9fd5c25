// bifrost-failover: how long one Bifröst connection stalls when its primary QP's path dies,
// with and without a ready backup QP (the Bifröst paper, §3.4.2: re-establishing a QP takes
// "e.g., 5ms", switching to a backup "~60 us"; the soft RNIC models both as
// rnic::QpTransitionCosts, which the connection pays).
//
//   bifrost-failover --mode rc,uc --backups 0,2 --csv out.csv
//
// Two soft RNICs (sim::TransportPair) on a lossless wire; the application keeps --depth
// messages of --size bytes outstanding from side 0. At --fail-at-us every packet of both
// primary QPs (their UDP source ports: the path ECMP put them on) is dropped from then on. One
// row per (mode, backups): when the sender gave up the primary (detection: RC's retries, UC's
// three timeouts), the sender's stall from then to its next acknowledgement, and the longest
// gap between two deliveries at the receiver (what the application sees, detection included).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/sim/transport_pair.h"

namespace {

using namespace bifrost;

struct Options {
  std::vector<std::string> modes{"rc", "uc"};
  std::vector<uint32_t> backups{0, 2};
  double rate_gbps = 25;
  double rtt_us = 6;
  uint32_t mtu = 1024;
  uint64_t size = 32768;
  uint32_t depth = 8;
  double fail_at_us = 1000;
  double duration_us = 20000;
  uint32_t rc_timeout = 8;  // 4.096 us * 2^8 = 1.05 ms; with 2 retries RC gives up in ~3 ms
  double min_rto_us = 500;
  std::string csv_file;
};

struct Row {
  std::string mode;
  uint32_t backups = 0;
  double detect_us = 0;        // path death to giving up the primary
  double stall_us = 0;         // giving up the primary to the next acknowledgement
  double delivery_gap_us = 0;  // the longest gap between deliveries at the receiver
  uint64_t failovers = 0;
  uint64_t reconnects = 0;
  uint64_t delivered = 0;
};

transport::Reliability reliability_of(const std::string& mode) {
  if (mode == "uc") return transport::Reliability::software_uc;
  if (mode == "rc") return transport::Reliability::hardware_rc;
  throw Error("unknown --mode '{}' (uc or rc)", mode);
}

Row run(const Options& o, const std::string& mode, uint32_t backups) {
  sim::TransportPairConfig c;
  c.wire.rate = Rate::bps(static_cast<int64_t>(o.rate_gbps * 1e9));
  c.wire.delay = Time::from_seconds(o.rtt_us * 1e-6 / 2);
  c.transport = transport::TransportConfig::paper();
  c.transport.reliability = reliability_of(mode);
  c.transport.backup_qps = backups;
  c.transport.mtu = o.mtu;
  c.transport.line_rate_bps = static_cast<uint64_t>(o.rate_gbps * 1e9);
  c.transport.rc_timeout = o.rc_timeout;
  c.transport.min_rto = Time::from_seconds(o.min_rto_us * 1e-6);
  sim::TransportPair pair(c);
  sim::TransportPair::Side& a = pair.side(0);
  sim::TransportPair::Side& b = pair.side(1);
  const Time fail_at = Time::from_seconds(o.fail_at_us * 1e-6);
  const Time end = Time::from_seconds(o.duration_us * 1e-6);
  const uint16_t dead_a = a.connection->qps()[0].source_port;
  const uint16_t dead_b = b.connection->qps()[0].source_port;
  sim::EventKernel& kernel = pair.kernel();
  for (int side = 0; side < 2; ++side) {
    pair.wire().set_drop_filter(side, [&kernel, fail_at, dead_a, dead_b](const world::Packet& p) {
      return kernel.now() >= fail_at && (p.src.port == dead_a || p.src.port == dead_b);
    });
  }
  Row row;
  row.mode = mode;
  row.backups = backups;
  Time last_delivery = Time::zero();
  Time longest = Time::zero();
  b.connection->set_delivery_handler([&](const transport::Delivery&) {
    const Time now = kernel.now();
    if (last_delivery != Time::zero()) longest = std::max(longest, now - last_delivery);
    last_delivery = now;
    ++row.delivered;
  });
  a.app->fill(sim::TransportPair::kAppBase, o.size, 1);
  const transport::MessageBuffer message{
      .region = a.app_region, .addr = sim::TransportPair::kAppBase, .length = o.size};
  std::function<void()> post = [&] {
    if (kernel.now() >= end) return;
    a.connection->send(message, [&](const transport::SendCompletion& done) {
      if (done.status == transport::SendStatus::delivered) post();
    });
  };
  for (uint32_t i = 0; i < o.depth; ++i) post();
  kernel.run_until(end);
  const transport::SenderStats& s = a.connection->sender_stats();
  // The sender's stall ends at its first acknowledgement after giving up the primary.
  row.detect_us = (s.last_failover_at - fail_at).seconds() * 1e6;
  row.stall_us = s.last_failover_gap.seconds() * 1e6;
  row.delivery_gap_us = longest.seconds() * 1e6;
  row.failovers = s.failovers;
  row.reconnects = a.connection->stats().reconnects_done;
  if (s.last_failover_at == Time::zero()) {
    throw Error("{} with {} backups: the primary was never given up by {} us", mode, backups,
                o.duration_us);
  }
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"One Bifröst connection's stall when its primary QP's path dies"};
  app.add_option("--mode", o.modes, "uc, rc")->delimiter(',');
  app.add_option("--backups", o.backups, "backup QPs per connection")->delimiter(',');
  app.add_option("--rate-gbps", o.rate_gbps);
  app.add_option("--rtt-us", o.rtt_us);
  app.add_option("--mtu", o.mtu);
  app.add_option("--size", o.size, "message bytes");
  app.add_option("--depth", o.depth, "messages outstanding");
  app.add_option("--fail-at-us", o.fail_at_us, "when the primary path dies");
  app.add_option("--duration-us", o.duration_us);
  app.add_option("--rc-timeout", o.rc_timeout, "RC QP timeout exponent (4.096 us * 2^n)");
  app.add_option("--min-rto-us", o.min_rto_us, "UC retransmission timeout floor");
  app.add_option("--csv", o.csv_file, "write the rows here");
  CLI11_PARSE(app, argc, argv);
  try {
    std::string csv =
        "mode,backups,detect_us,stall_us,delivery_gap_us,failovers,reconnects,"
        "delivered\n";
    for (const std::string& mode : o.modes) {
      for (const uint32_t backups : o.backups) {
        const Row r = run(o, mode, backups);
        fmt::print(
            "{} backups {}: detected after {:.1f} us, sender stalled {:.1f} us, longest "
            "delivery gap {:.1f} us ({} failovers, {} reconnects, {} delivered)\n",
            r.mode, r.backups, r.detect_us, r.stall_us, r.delivery_gap_us, r.failovers,
            r.reconnects, r.delivered);
        csv += fmt::format("{},{},{:.2f},{:.2f},{:.2f},{},{},{}\n", r.mode, r.backups, r.detect_us,
                           r.stall_us, r.delivery_gap_us, r.failovers, r.reconnects, r.delivered);
      }
    }
    if (!o.csv_file.empty()) std::ofstream(o.csv_file) << csv;
  } catch (const Error& e) {
    fmt::print(stderr, "bifrost-failover: {}\n", e.what());
    return 1;
  }
  return 0;
}
