// flow_throughput.csv, flow_fairness.csv and the "flow_throughput" object of summary.json.
#include <fmt/format.h>

#include <iterator>
#include <set>

#include "bifrost/core/percentiles.h"
#include "bifrost/sim/metrics/writers.h"
#include "flow_throughput_json.h"

namespace bifrost::sim::metrics {

std::string flow_throughput_csv(const FlowThroughputSeries& series) {
  std::string out = "start_ps,end_ps,flow,bytes,gbps,whole,dcqcn_gbps,dcqcn_alpha\n";
  auto it = std::back_inserter(out);
  for (const auto& s : series.samples()) {
    fmt::format_to(it, "{},{},{},{},{},{:d},", s.start.picoseconds(), s.end.picoseconds(), s.flow,
                   s.bytes.count(), s.gbps(), s.whole);
    if (s.dcqcn_gbps) fmt::format_to(it, "{}", *s.dcqcn_gbps);
    out += ',';
    if (s.dcqcn_alpha) fmt::format_to(it, "{}", *s.dcqcn_alpha);
    out += '\n';
  }
  return out;
}

std::string flow_fairness_csv(const FlowThroughputSeries& series) {
  std::string out = "start_ps,end_ps,flows,jain\n";
  auto it = std::back_inserter(out);
  for (const auto& f : series.fairness()) {
    fmt::format_to(it, "{},{},{},{}\n", f.start.picoseconds(), f.end.picoseconds(), f.flows,
                   f.jain);
  }
  return out;
}

namespace detail {

nlohmann::ordered_json flow_throughput_summary(const FlowThroughputSeries& series) {
  using Json = nlohmann::ordered_json;
  std::set<uint64_t> flows;
  for (const auto& s : series.samples()) flows.insert(s.flow);
  const auto fairness = series.fairness();
  Json j;
  j["interval_ps"] = series.interval().picoseconds();
  j["flows"] = flows.size();
  j["samples"] = series.samples().size();
  const std::optional<double> run = series.run_fairness();
  j["jain_run"] = run ? Json(*run) : Json(nullptr);
  j["intervals"] = fairness.size();
  if (fairness.empty()) {
    j["jain_min"] = j["jain_p10"] = j["jain_median"] = j["jain_mean"] = nullptr;
    return j;
  }
  ExactPercentiles jain;
  double sum = 0;
  for (const auto& f : fairness) {
    jain.add(f.jain);
    sum += f.jain;
  }
  j["jain_min"] = jain.percentile(0);
  j["jain_p10"] = jain.percentile(10);
  j["jain_median"] = jain.percentile(50);
  j["jain_mean"] = sum / static_cast<double>(fairness.size());
  return j;
}

}  // namespace detail
}  // namespace bifrost::sim::metrics
