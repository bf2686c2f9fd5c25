#include "bifrost/sim/workload/poisson.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <queue>
#include <unordered_map>

#include "bifrost/core/error.h"
#include "spec_checks.h"

namespace bifrost::sim::workload {

namespace {

void check_spec(const PoissonSpec& spec, const std::string& label) {
  detail::check_hosts(spec.sources, "sources", 1, label);
  detail::check_priority(spec.priority, label);
  detail::check_not_negative(spec.start, "start", label);
  if (!(std::isfinite(spec.load) && spec.load > 0)) {
    throw Error("{}: load must be a positive finite number, got {}", label, spec.load);
  }
  if (spec.reference_rate.bits_per_second() <= 0) {
    throw Error("{}: the reference rate must be positive", label);
  }
  if (!spec.stop.duration && !spec.stop.max_flows) {
    throw Error("{}: needs a stop condition (a duration, a flow count or both)", label);
  }
  if (spec.stop.duration && *spec.stop.duration < Time::zero()) {
    throw Error("{}: duration must not be negative", label);
  }
  detail::check_hosts(spec.destinations, "destinations", 1, label);
  // Destinations are distinct, so only a single destination can leave a source without one.
  if (spec.destinations.size() == 1) {
    const uint32_t only = spec.destinations.front();
    if (std::find(spec.sources.begin(), spec.sources.end(), only) != spec.sources.end()) {
      throw Error("{}: source {} has no destination other than itself", label, only);
    }
  }
}

// One source's arrival process: its own random stream, and where it sits among the
// destinations (it skips itself when drawing one).
struct Source {
  uint32_t host;
  RandomStream rng;
  std::optional<std::size_t> self;  // index of `host` in the destinations, if it is one
};

struct Arrival {
  Time at;
  std::size_t source;  // index into the sources vector; breaks ties in source order
  bool operator>(const Arrival& o) const { return at != o.at ? at > o.at : source > o.source; }
};

Time draw_interval(RandomStream& rng, double mean_ps) {
  const double ps = std::round(rng.exponential(mean_ps));
  // A mean that overflows picoseconds is "never" for any run that can be simulated.
  if (!(ps < static_cast<double>(Time::max().picoseconds()))) return Time::max();
  return Time::ps(static_cast<int64_t>(ps));
}

Time add_saturating(Time a, Time b) {
  return b > Time::max() - a ? Time::max() : a + b;
}

}  // namespace

double mean_interarrival_ps(const PoissonSpec& spec, const FlowSizeCdf& sizes) {
  const double bits = sizes.mean_bytes() * 8;
  const double rate = static_cast<double>(spec.reference_rate.bits_per_second()) * spec.load;
  const double per_source = bits / rate * 1e12;
  if (spec.reference == LoadReference::aggregate) {
    return per_source * static_cast<double>(spec.sources.size());
  }
  return per_source;
}

std::vector<Flow> generate_poisson(const PoissonSpec& spec, const FlowSizeCdf& sizes,
                                   const RandomStream& rng) {
  const std::string label = detail::generator_label("poisson", spec.tag);
  check_spec(spec, label);
  const double mean_ps = mean_interarrival_ps(spec, sizes);
  const Time end =
      spec.stop.duration ? add_saturating(spec.start, *spec.stop.duration) : Time::max();
  const uint64_t max_flows = spec.stop.max_flows.value_or(UINT64_MAX);

  std::unordered_map<uint32_t, std::size_t> position;
  for (std::size_t i = 0; i < spec.destinations.size(); ++i) position[spec.destinations[i]] = i;
  std::vector<Source> sources;
  sources.reserve(spec.sources.size());
  for (uint32_t host : spec.sources) {
    const auto it = position.find(host);
    sources.push_back({host, rng.fork(fmt::format("source/{}", host)),
                       it == position.end() ? std::nullopt : std::optional(it->second)});
  }

  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> next;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    next.push({add_saturating(spec.start, draw_interval(sources[i].rng, mean_ps)), i});
  }
  std::vector<Flow> flows;
  while (!next.empty() && flows.size() < max_flows) {
    const Arrival a = next.top();
    next.pop();
    if (a.at >= end || a.at == Time::max()) continue;  // this source is done
    Source& s = sources[a.source];
    // Uniform over the destinations without the source itself: draw among n - 1 and step
    // over the source's own position.
    const std::size_t others = spec.destinations.size() - (s.self ? 1 : 0);
    std::size_t pick = s.rng.uniform_int(0, others - 1);
    if (s.self && pick >= *s.self) ++pick;
    const uint32_t dst = spec.destinations[pick];
    const Bytes size = sizes.sample(s.rng);
    flows.push_back(Flow{flows.size(), s.host, dst, size, a.at, spec.priority, spec.tag});
    next.push({add_saturating(a.at, draw_interval(s.rng, mean_ps)), a.source});
  }
  return flows;
}

}  // namespace bifrost::sim::workload
