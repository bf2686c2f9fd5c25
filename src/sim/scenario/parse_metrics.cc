#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/topology.h"
#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 8> kKeys = {
    "throughput_interval", "throughput_links", "queue_interval",           "size_buckets",
    "percentiles",         "flow_records",     "flow_throughput_interval", "cc_trace"};

// Link classes of the topology, each once; sampling only these keeps a long run's
// throughput.csv to the links a study looks at (the DCI link of two_dc, say).
std::vector<std::string> link_class_list(const TableReader& r, const toml::array& array,
                                         const Topology& topology) {
  const std::vector<std::string_view> classes = link_classes(topology);
  std::vector<std::string> chosen;
  for (const toml::node& element : array) {
    const auto* s = element.as_string();
    if (s == nullptr) {
      r.fail_at(element, "throughput_links",
                fmt::format("expected a link class name, one of: {}; found {}", join(classes),
                            type_phrase(element)));
    }
    const std::string& name = s->get();
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) {
      r.fail_at(element, "throughput_links",
                fmt::format("\"{}\" is not a link class of this topology; valid classes: {}", name,
                            join(classes)));
    }
    if (std::find(chosen.begin(), chosen.end(), name) != chosen.end()) {
      r.fail_at(element, "throughput_links", fmt::format("\"{}\" is listed twice", name));
    }
    chosen.push_back(name);
  }
  if (chosen.empty()) {
    r.fail("throughput_links", "is empty; list link classes, or leave the key out for every link");
  }
  return chosen;
}

std::vector<Bytes> size_buckets(const TableReader& r, const toml::array& array) {
  std::vector<Bytes> edges;
  for (const toml::node& element : array) {
    Bytes edge;
    if (const auto* i = element.as_integer()) {
      if (i->get() <= 0) r.fail_at(element, "size_buckets", "bucket edges must be above 0 bytes");
      edge = Bytes(static_cast<uint64_t>(i->get()));
    } else if (const auto* s = element.as_string()) {
      try {
        edge = parse_bytes(s->get());
      } catch (const Error& e) {
        r.fail_at(element, "size_buckets", e.what());
      }
      if (edge.count() == 0) r.fail_at(element, "size_buckets", "bucket edges must be above 0");
    } else {
      r.fail_at(element, "size_buckets",
                fmt::format("expected a size such as \"10KB\", found {}", type_phrase(element)));
    }
    if (!edges.empty() && edge <= edges.back()) {
      r.fail_at(element, "size_buckets",
                fmt::format("{} bytes does not increase on the previous edge ({} bytes)",
                            edge.count(), edges.back().count()));
    }
    edges.push_back(edge);
  }
  return edges;
}

std::vector<double> percentiles(const TableReader& r, const toml::array& array) {
  std::vector<double> ps;
  for (const toml::node& element : array) {
    double p = 0;
    if (const auto* i = element.as_integer()) {
      p = static_cast<double>(i->get());
    } else if (const auto* f = element.as_floating_point()) {
      p = f->get();
    } else {
      r.fail_at(element, "percentiles",
                fmt::format("expected a number from 0 to 100, found {}", type_phrase(element)));
    }
    if (!(p >= 0 && p <= 100)) {
      r.fail_at(element, "percentiles",
                fmt::format("{} is out of range; valid values: 0 to 100", p));
    }
    if (!ps.empty() && p <= ps.back()) {
      r.fail_at(element, "percentiles",
                fmt::format("{} does not increase on the previous percentile ({})", p, ps.back()));
    }
    ps.push_back(p);
  }
  if (ps.empty()) r.fail("percentiles", "is empty; list at least one percentile");
  return ps;
}

}  // namespace

MetricsConfig parse_metrics(const TableReader& r, const Topology& topology) {
  r.allow_only(kKeys);
  MetricsConfig m;
  m.throughput_interval = r.positive_time("throughput_interval");
  if (const toml::array* a = r.array("throughput_links", "link class names")) {
    if (!m.throughput_interval) {
      r.fail("throughput_links", "needs throughput_interval: without it nothing is sampled");
    }
    m.throughput_links = link_class_list(r, *a, topology);
  }
  m.queue_interval = r.positive_time("queue_interval");
  if (const toml::array* a = r.array("size_buckets", "sizes such as \"10KB\"")) {
    m.size_buckets = size_buckets(r, *a);
  }
  if (const toml::array* a = r.array("percentiles", "numbers from 0 to 100")) {
    m.percentiles = percentiles(r, *a);
  }
  m.flow_records = r.boolean("flow_records").value_or(true);
  m.flow_throughput_interval = r.positive_time("flow_throughput_interval");
  m.cc_trace = r.boolean("cc_trace").value_or(false);
  return m;
}

}  // namespace bifrost::sim::scenario::detail
