// bifrost-rogue-verbs: RoGUE's verb completion time (Fig. 7 of the RoGUE paper) and signals,
// WQEs and NIC clock reads per GB (Figs. 2, 3, 6) on two simulated hosts, RoGUE over RC or
// plain RoCE (verb_bench.h). One CSV row per verb size, appended under a label.
//
//   bifrost-rogue-verbs --scheme rogue --sizes 64,1048576 --label headline --csv out.csv
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "verb_bench.h"

int main(int argc, char** argv) {
  using namespace bifrost;
  using namespace bifrost::rogue_rtt;
  VerbBenchConfig c;
  std::string scheme = "rogue", op = "read", label = "run", csv;
  std::vector<uint64_t> sizes = {64, 1 << 20};
  double rate_gbps = 10, delay_us = 0.5, signal_us = 0, clock_us = 0;
  uint64_t group_bytes = 0;
  CLI::App app{"RoGUE's verb completion time and signalling per GB on two simulated hosts"};
  app.add_option("--scheme", scheme, "rogue | roce (a bare RC QP)")->capture_default_str();
  app.add_option("--op", op, "read | write")->capture_default_str();
  app.add_option("--sizes", sizes, "verb sizes, bytes")->delimiter(',');
  app.add_option("--group-bytes", group_bytes,
                 "the application signals one verb per this many bytes (0: every verb)")
      ->capture_default_str();
  app.add_option("--groups", c.groups, "signalled groups outstanding")->capture_default_str();
  app.add_option("--warmup", c.warmup, "groups before measuring")->capture_default_str();
  app.add_option("--measured", c.measured, "groups measured")->capture_default_str();
  app.add_option("--signal-cost-us", signal_us, "RoGUE: host CPU per signal of its own")
      ->capture_default_str();
  app.add_option("--clock-read-cost-us", clock_us, "RoGUE: host CPU per NIC clock read")
      ->capture_default_str();
  app.add_option("--min-batches", c.min_batches, "RoGUE: batches kept enqueued")
      ->capture_default_str();
  app.add_option("--max-window-bytes", c.max_window_bytes,
                 "RoGUE: cap on the Vegas window (0: Vegas's default)")
      ->capture_default_str();
  app.add_option("--rate-gbps", rate_gbps, "line rate")->capture_default_str();
  app.add_option("--delay-us", delay_us, "one-way wire delay")->capture_default_str();
  app.add_option("--mtu", c.wire.mtu, "path MTU")->capture_default_str();
  app.add_option("--label", label, "the rows' first column")->capture_default_str();
  app.add_option("--csv", csv, "append the rows to this CSV (header if new)");
  CLI11_PARSE(app, argc, argv);
  c.wire.line_rate = Rate::bps(static_cast<int64_t>(rate_gbps * 1e9));
  c.wire.one_way_delay = Time::from_seconds(delay_us * 1e-6);
  c.scheme = scheme == "roce" ? Scheme::roce : Scheme::rogue;
  c.read = op == "read";
  c.signal_cost = Time::from_seconds(signal_us * 1e-6);
  c.clock_read_cost = Time::from_seconds(clock_us * 1e-6);
  try {
    if ((scheme != "roce" && scheme != "rogue") || (op != "read" && op != "write")) {
      throw std::runtime_error("--scheme is rogue or roce, --op read or write");
    }
    const bool fresh = csv.empty() || !std::filesystem::exists(csv);
    std::ofstream f;
    if (!csv.empty()) f.open(csv, std::ios::app);
    if (f.is_open() && fresh) {
      f << "label,scheme,signal_cost_us,clock_read_cost_us,min_batches,max_window_bytes,op,bytes,"
           "signal_every,"
           "groups,measured,mean_us,p50_us,p99_us,gbps,"
           "signals_per_gb,wqes_per_gb,clock_reads_per_gb,modelled_cpu_s_per_gb,"
           "modelled_cpu_pct\n";
    }
    fmt::print("{:>9} {:>6} {:>10} {:>10} {:>10} {:>8} {:>11} {:>11} {:>11} {:>8}\n", "bytes",
               "every", "mean us", "p50 us", "p99 us", "Gb/s", "signals/GB", "WQEs/GB", "reads/GB",
               "cpu %");
    for (const uint64_t size : sizes) {
      VerbBenchConfig run = c;
      run.verb_bytes = size;
      run.signal_every = group_bytes > size ? static_cast<uint32_t>(group_bytes / size) : 1;
      const VerbResult r = run_verbs(run);
      const double cpu_s_per_gb = r.per_gb(r.modelled_cpu_ns) / 1e9;
      const double cpu_pct =
          r.elapsed > Time::zero()
              ? 100.0 * static_cast<double>(r.modelled_cpu_ns) / 1e9 / r.elapsed.seconds()
              : 0.0;
      fmt::print(
          "{:9} {:6} {:10.3f} {:10.3f} {:10.3f} {:8.3f} {:11.0f} {:11.0f} {:11.0f} {:8.2f}\n", size,
          run.signal_every, r.mean_us, r.p50_us, r.p99_us, r.gbps(), r.per_gb(r.signals),
          r.per_gb(r.wqes), r.per_gb(r.clock_reads), cpu_pct);
      if (f.is_open()) {
        f << fmt::format(
            "{},{},{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.1f},{:.1f},{:.1f},"
            "{:.6f},{:.3f}\n",
            label, scheme, signal_us, clock_us, run.min_batches, run.max_window_bytes, op, size,
            run.signal_every, run.groups, r.groups, r.mean_us, r.p50_us, r.p99_us, r.gbps(),
            r.per_gb(r.signals), r.per_gb(r.wqes), r.per_gb(r.clock_reads), cpu_s_per_gb, cpu_pct);
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "bifrost-rogue-verbs: {}\n", e.what());
    return 1;
  }
  return 0;
}
