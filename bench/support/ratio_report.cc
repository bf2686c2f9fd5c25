#include "ratio_report.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

namespace bifrost::bench {
namespace {

struct Name {
  std::string group, variant, arg;
};

// Splits "group/variant/arg" (arg may itself contain '/'); returns false for other shapes.
bool split_name(const std::string& full, Name& out) {
  const auto a = full.find('/');
  if (a == std::string::npos) return false;
  const auto b = full.find('/', a + 1);
  if (b == std::string::npos) return false;
  out = {full.substr(0, a), full.substr(a + 1, b - a - 1), full.substr(b + 1)};
  return true;
}

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      // With --benchmark_repetitions the median stands for the benchmark; otherwise the run.
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      const bool single = r.run_type == Run::RT_Iteration && r.repetitions <= 1;
      if (r.error_occurred || !(median || single)) continue;
      const auto it = r.counters.find("items_per_second");
      if (it == r.counters.end()) continue;
      Name n;
      if (!split_name(r.run_name.str(), n)) continue;
      rates_[n.group + "/" + n.arg][n.variant] = it->second.value;
      order_.push_back(n);
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    bool header = false;
    for (const Name& n : order_) {
      if (n.variant == "baseline") continue;
      const auto& variants = rates_[n.group + "/" + n.arg];
      const auto base = variants.find("baseline");
      if (base == variants.end() || base->second <= 0) continue;
      if (!header) {
        fmt::print("\n{:<40} {:>16} {:>16} {:>8}\n", "benchmark (vs baseline, same run)", "items/s",
                   "baseline items/s", "ratio");
        header = true;
      }
      const double mine = variants.at(n.variant);
      fmt::print("{:<40} {:>16.4g} {:>16.4g} {:>7.2f}x\n", n.group + "/" + n.variant + "/" + n.arg,
                 mine, base->second, mine / base->second);
    }
  }

 private:
  std::map<std::string, std::map<std::string, double>> rates_;
  std::vector<Name> order_;
};

}  // namespace

int run_with_ratios(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace bifrost::bench
