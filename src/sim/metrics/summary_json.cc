#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bifrost/sim/metrics/writers.h"
#include "fasr_pool_json.h"
#include "flow_throughput_json.h"
#include "probe_rtt_json.h"

namespace bifrost::sim::metrics {

namespace {

using Json = nlohmann::ordered_json;

Json optional_value(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json slowdown(const SlowdownSummary& s, const std::vector<double>& percentiles) {
  Json j;
  j["bucket"] = s.label;
  j["min_bytes"] = s.lower.count();
  j["max_bytes"] = s.upper ? Json(s.upper->count()) : Json(nullptr);
  j["flows"] = s.flows;
  const auto fill = [&percentiles](Json& out, const std::optional<double>& mean,
                                   const std::vector<double>& values) {
    out["mean"] = optional_value(mean);
    for (std::size_t i = 0; i < percentiles.size(); ++i) {
      out[fmt::format("p{}", percentiles[i])] = i < values.size() ? Json(values[i]) : Json(nullptr);
    }
  };
  fill(j, s.mean, s.percentiles);
  Json fct;
  fill(fct, s.mean_fct_us, s.fct_us);
  j["fct_us"] = fct;
  return j;
}

Json flows(const FlowMetrics& f) {
  uint64_t bytes = 0;
  for (const FlowRecord& r : f.records()) bytes += r.size.count();
  Json j;
  j["total"] = f.records().size();
  j["finished"] = f.finished();
  j["unfinished"] = f.unfinished();
  j["bytes"] = bytes;
  const auto by_size = f.by_size();
  j["slowdown"] = slowdown(by_size.back(), f.percentiles());
  j["slowdown_by_size"] = Json::array();
  for (std::size_t i = 0; i + 1 < by_size.size(); ++i) {
    j["slowdown_by_size"].push_back(slowdown(by_size[i], f.percentiles()));
  }
  return j;
}

Json throughput(const ThroughputSeries& t) {
  struct Totals {
    uint64_t bytes = 0;
    Time time;
    double max_gbps = 0;
  };
  std::vector<Totals> totals(t.links().size());
  for (const auto& s : t.samples()) {
    Totals& total = totals[s.link];
    total.bytes += s.bytes.count();
    total.time += s.end - s.start;
    total.max_gbps = std::max(total.max_gbps, s.gbps());
  }
  Json j = Json::object();
  for (std::size_t i = 0; i < totals.size(); ++i) {
    const Totals& total = totals[i];
    Json link;
    link["mean_gbps"] = total.time > Time::zero()
                            ? Json(static_cast<double>(total.bytes) * 8 * 1000.0 /
                                   static_cast<double>(total.time.picoseconds()))
                            : Json(nullptr);
    link["max_gbps"] = total.max_gbps;
    j[t.links()[i]] = link;
  }
  return j;
}

Json queues(const QueueSeries& q) {
  struct Totals {
    uint64_t samples = 0;
    double sum = 0;
    uint64_t max = 0;
  };
  std::vector<Totals> totals(q.queues().size());
  for (const auto& s : q.samples()) {
    Totals& total = totals[s.queue];
    ++total.samples;
    total.sum += static_cast<double>(s.length.count());
    total.max = std::max(total.max, s.length.count());
  }
  Json j = Json::object();
  for (std::size_t i = 0; i < totals.size(); ++i) {
    Json queue;
    queue["samples"] = totals[i].samples;
    queue["mean_bytes"] = totals[i].samples > 0
                              ? Json(totals[i].sum / static_cast<double>(totals[i].samples))
                              : Json(nullptr);
    queue["max_bytes"] = totals[i].max;
    j[q.queues()[i]] = queue;
  }
  return j;
}

Json pauses(const PauseCounters& p) {
  Json j;
  j["count"] = p.count();
  j["paused_ps"] = p.total().picoseconds();
  j["by_port"] = Json::object();
  for (const auto& [port, pp] : p.by_port()) {
    j["by_port"][port] = {{"count", pp.count},
                          {"paused_ps", pp.total.picoseconds()},
                          {"longest_ps", pp.longest.picoseconds()}};
  }
  return j;
}

Json drops(const DropCounters& d) {
  Json j;
  j["total"] = d.total();
  j["by_reason"] = Json::object();
  for (const auto& [reason, packets] : d.by_reason()) j["by_reason"][reason] = packets;
  return j;
}

}  // namespace

std::string summary_json(const RunMetrics& metrics, const RunInfo& info) {
  Json j;
  j["scenario"] = info.scenario;
  j["seed"] = info.seed;
  j["simulated_ps"] = info.simulated.picoseconds();
  j["wall_seconds"] = optional_value(info.wall_seconds);
  j["flows"] = flows(metrics.flows);
  j["throughput"] = throughput(metrics.throughput);
  j["queues"] = queues(metrics.queues);
  j["pauses"] = pauses(metrics.pauses);
  j["drops"] = drops(metrics.drops);
  if (metrics.fasr_pool) j["fasr_pool"] = detail::fasr_pool_summary(*metrics.fasr_pool);
  if (metrics.flow_throughput) {
    j["flow_throughput"] = detail::flow_throughput_summary(*metrics.flow_throughput);
  }
  if (!metrics.probes.empty()) j["probes"] = detail::probe_rtt_summary(metrics.probes);
  if (const auto& n = metrics.nic) {
    j["nic"] = {{"retransmitted", n->retransmitted},
                {"timeouts", n->timeouts},
                {"naks_sent", n->naks_sent},
                {"sacks_sent", n->sacks_sent},
                {"delayed_acks", n->delayed_acks},
                {"cnps_sent", n->cnps_sent},
                {"uc_out_of_sequence", n->uc_out_of_sequence}};
  }
  return j.dump(2) + "\n";
}

}  // namespace bifrost::sim::metrics
