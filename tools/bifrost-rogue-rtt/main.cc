// bifrost-rogue-rtt: RoGUE's RTT accuracy (Table 1 of the RoGUE paper) on two simulated hosts.
// One QP on an idle wire: a zero-byte RC WRITE oracle, RoGUE RC READ(64 KB) and RoGUE UC
// WRITE(64 KB) at line rate; p10/p50/p90 of each row's RTTs, and our check that each RoGUE
// estimate is within 1 us + one MTU's serialization of the oracle's median (rtt_bench.h).
//
//   bifrost-rogue-rtt --csv table.csv --samples samples.csv
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "rtt_bench.h"

namespace {

using namespace bifrost;
using namespace bifrost::rogue_rtt;

struct Measured {
  RowResult result;
  Time p10, p50, p90;
  double within = 0;  // fraction of the row's samples within the bound of the oracle's median
};

}  // namespace

int main(int argc, char** argv) {
  BenchConfig c;
  double rate_gbps = 10, delay_us = 0.5, duration_ms = 20;
  double signal_us = c.signal_cost.microseconds(), clock_us = c.clock_read_cost.microseconds();
  std::string csv, samples_csv;
  bool with_held_off = false;
  CLI::App app{"RoGUE's RTT accuracy (Table 1) on two simulated hosts"};
  app.add_option("--rate-gbps", rate_gbps, "line rate")->capture_default_str();
  app.add_option("--delay-us", delay_us, "one-way wire delay")->capture_default_str();
  app.add_option("--mtu", c.mtu, "path MTU")->capture_default_str();
  app.add_option("--verb", c.verb_bytes, "bytes per verb")->capture_default_str();
  app.add_option("--outstanding", c.verbs_outstanding, "verbs the application keeps posted")
      ->capture_default_str();
  app.add_option("--duration-ms", duration_ms, "simulated time per RoGUE row")
      ->capture_default_str();
  app.add_option("--probes", c.oracle_probes, "oracle WRITE(0)s")->capture_default_str();
  app.add_option("--seed", c.seed)->capture_default_str();
  app.add_option("--signal-cost-us", signal_us,
                 "RoGUE's modelled host CPU per signal of its own (0: off)")
      ->capture_default_str();
  app.add_option("--clock-read-cost-us", clock_us,
                 "RoGUE's modelled NIC clock read before each batch (0: off)")
      ->capture_default_str();
  app.add_flag("--completes-at-transmit", c.completes_at_transmit,
               "UC sends complete when their last packet left the NIC (hardware's meaning), not "
               "when handed to the NIC's port queue");
  app.add_flag("--with-held-off", with_held_off,
               "percentiles over every computed sample, also those held off after a rate change");
  app.add_option("--csv", csv, "write the table as CSV here");
  app.add_option("--samples", samples_csv, "write every sample as CSV here");
  CLI11_PARSE(app, argc, argv);
  c.line_rate = Rate::bps(static_cast<int64_t>(rate_gbps * 1e9));
  c.one_way_delay = Time::from_seconds(delay_us * 1e-6);
  c.duration = Time::from_seconds(duration_ms * 1e-3);
  c.signal_cost = Time::from_seconds(signal_us * 1e-6);
  c.clock_read_cost = Time::from_seconds(clock_us * 1e-6);
  try {
    std::vector<Measured> rows;
    for (const Row row : {Row::write0_oracle, Row::rc_read, Row::uc_write}) {
      Measured r;
      r.result = run_row(c, row);
      r.p10 = quantile(r.result.samples, 0.1, with_held_off);
      r.p50 = quantile(r.result.samples, 0.5, with_held_off);
      r.p90 = quantile(r.result.samples, 0.9, with_held_off);
      rows.push_back(std::move(r));
    }
    const Time oracle = rows.front().p50;
    const Time bound = accuracy_bound(c);
    for (Measured& r : rows) {
      uint64_t n = 0, ok = 0;
      for (const Sample& s : r.result.samples) {
        if (s.held_off && !with_held_off) continue;
        ++n;
        const Time error = s.rtt > oracle ? s.rtt - oracle : oracle - s.rtt;
        ok += error <= bound ? 1 : 0;
      }
      r.within = n > 0 ? static_cast<double>(ok) / static_cast<double>(n) : 0.0;
    }
    fmt::print("{:18} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>10}\n", "row", "p10 us", "p50 us",
               "p90 us", "samples", "held off", "Gb/s", "within");
    for (const Measured& r : rows) {
      uint64_t held = 0;
      for (const Sample& s : r.result.samples) held += s.held_off ? 1 : 0;
      fmt::print("{:18} {:8.3f} {:8.3f} {:8.3f} {:8} {:9} {:9.3f} {:9.1f}%\n",
                 to_string(r.result.row), r.p10.microseconds(), r.p50.microseconds(),
                 r.p90.microseconds(), r.result.samples.size(), held, r.result.goodput_gbps(),
                 100 * r.within);
    }
    fmt::print("bound: oracle median {:.3f} us +- {:.3f} us (1 us + {} B at {} Gb/s)\n",
               oracle.microseconds(), bound.microseconds(), c.mtu, rate_gbps);
    if (!csv.empty()) {
      std::ofstream f(csv);
      f << "row,p10_us,p50_us,p90_us,samples,held_off,goodput_gbps,within_bound,bound_us\n";
      for (const Measured& r : rows) {
        uint64_t held = 0;
        for (const Sample& s : r.result.samples) held += s.held_off ? 1 : 0;
        f << fmt::format("{},{:.4f},{:.4f},{:.4f},{},{},{:.4f},{:.4f},{:.4f}\n",
                         to_string(r.result.row), r.p10.microseconds(), r.p50.microseconds(),
                         r.p90.microseconds(), r.result.samples.size(), held,
                         r.result.goodput_gbps(), r.within, bound.microseconds());
      }
    }
    if (!samples_csv.empty()) {
      std::ofstream f(samples_csv);
      f << "row,time_us,rtt_us,held_off\n";
      for (const Measured& r : rows) {
        for (const Sample& s : r.result.samples) {
          f << fmt::format("{},{:.3f},{:.4f},{}\n", to_string(r.result.row), s.at.microseconds(),
                           s.rtt.microseconds(), s.held_off ? 1 : 0);
        }
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "bifrost-rogue-rtt: {}\n", e.what());
    return 1;
  }
  return 0;
}
