#include <fmt/format.h>

#include <iterator>

#include "bifrost/sim/metrics/writers.h"

namespace bifrost::sim::metrics {

namespace {

// A CSV field: as is, or quoted with inner quotes doubled when it holds , " or a line break.
std::string field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string optional_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : "";
}

}  // namespace

std::string flows_csv(const FlowMetrics& flows) {
  std::string out = "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,tag\n";
  auto it = std::back_inserter(out);
  for (const FlowRecord& r : flows.records()) {
    fmt::format_to(it, "{},{},{},{},{},", r.id, r.src, r.dst, r.size.count(),
                   r.start.picoseconds());
    if (r.finished()) {
      fmt::format_to(it, "{},{},{},{},", r.finish->picoseconds(), r.fct().picoseconds(),
                     r.ideal_fct.picoseconds(), r.slowdown());
    } else {
      fmt::format_to(it, ",,{},,", r.ideal_fct.picoseconds());
    }
    fmt::format_to(it, "{}\n", field(r.tag));
  }
  return out;
}

std::string fct_by_size_csv(const FlowMetrics& flows) {
  std::string out = "bucket,min_bytes,max_bytes,flows,mean_slowdown";
  for (double p : flows.percentiles()) out += fmt::format(",p{}", p);
  out += ",mean_fct_us";
  for (double p : flows.percentiles()) out += fmt::format(",fct_p{}_us", p);
  out += '\n';
  auto it = std::back_inserter(out);
  const auto columns = [&](const std::vector<double>& values) {
    for (std::size_t i = 0; i < flows.percentiles().size(); ++i) {
      out += ',';
      if (i < values.size()) fmt::format_to(it, "{}", values[i]);
    }
  };
  for (const SlowdownSummary& s : flows.by_size()) {
    fmt::format_to(it, "{},{},{},{},{}", field(s.label), s.lower.count(),
                   s.upper ? fmt::format("{}", s.upper->count()) : "", s.flows,
                   optional_number(s.mean));
    columns(s.percentiles);
    fmt::format_to(it, ",{}", optional_number(s.mean_fct_us));
    columns(s.fct_us);
    out += '\n';
  }
  return out;
}

std::string throughput_csv(const ThroughputSeries& throughput) {
  std::string out = "start_ps,end_ps,link,bytes,gbps\n";
  auto it = std::back_inserter(out);
  for (const auto& s : throughput.samples()) {
    fmt::format_to(it, "{},{},{},{},{}\n", s.start.picoseconds(), s.end.picoseconds(),
                   field(throughput.links()[s.link]), s.bytes.count(), s.gbps());
  }
  return out;
}

std::string queues_csv(const QueueSeries& queues) {
  std::string out = "time_ps,queue,bytes\n";
  auto it = std::back_inserter(out);
  for (const auto& s : queues.samples()) {
    fmt::format_to(it, "{},{},{}\n", s.at.picoseconds(), field(queues.queues()[s.queue]),
                   s.length.count());
  }
  return out;
}

std::string pauses_csv(const PauseCounters& pauses) {
  std::string out = "port,pauses,paused_ps,longest_ps,frames\n";
  auto it = std::back_inserter(out);
  for (const auto& [port, p] : pauses.by_port()) {
    fmt::format_to(it, "{},{},{},{},{}\n", field(port), p.count, p.total.picoseconds(),
                   p.longest.picoseconds(), p.frames);
  }
  return out;
}

std::string drops_csv(const DropCounters& drops) {
  std::string out = "reason,packets\n";
  auto it = std::back_inserter(out);
  for (const auto& [reason, packets] : drops.by_reason()) {
    fmt::format_to(it, "{},{}\n", field(reason), packets);
  }
  return out;
}

}  // namespace bifrost::sim::metrics
