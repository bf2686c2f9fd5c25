#include <fmt/format.h>

#include <array>
#include <iterator>

#include "bifrost/core/percentiles.h"
#include "bifrost/sim/metrics/probe_rtt.h"
#include "probe_rtt_json.h"

namespace bifrost::sim::metrics {

std::string probe_rtt_csv(const std::vector<ProbeRttSeries>& series) {
  std::string out = "workload,src,dst,seq,posted_ps,rtt_ps\n";
  auto it = std::back_inserter(out);
  for (const ProbeRttSeries& s : series) {
    for (std::size_t i = 0; i < s.probes.size(); ++i) {
      fmt::format_to(it, "{},{},{},{},{},{}\n", s.workload, s.src, s.dst, i,
                     s.probes[i].posted.picoseconds(), s.probes[i].rtt.picoseconds());
    }
  }
  return out;
}

namespace detail {

nlohmann::ordered_json probe_rtt_summary(const std::vector<ProbeRttSeries>& series) {
  constexpr std::array<std::pair<const char*, double>, 6> kPoints = {{{"min_us", 0},
                                                                      {"p10_us", 10},
                                                                      {"p50_us", 50},
                                                                      {"p90_us", 90},
                                                                      {"p99_us", 99},
                                                                      {"max_us", 100}}};
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const ProbeRttSeries& s : series) {
    ExactPercentiles rtt;
    rtt.reserve(s.probes.size());
    for (const ProbeRtt& p : s.probes) rtt.add(p.rtt.seconds() * 1e6);
    nlohmann::ordered_json probe;
    probe["src"] = s.src;
    probe["dst"] = s.dst;
    probe["posted"] = s.posted;
    probe["completed"] = s.probes.size();
    probe["failed"] = s.failed;
    probe["skipped"] = s.skipped;
    for (const auto& [key, p] : kPoints) {
      probe[key] =
          rtt.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rtt.percentile(p));
    }
    j[s.workload] = probe;
  }
  return j;
}

}  // namespace detail
}  // namespace bifrost::sim::metrics
