#include "bifrost/sim/scenario/topology.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bifrost/core/error.h"
#include "bifrost/core/overloaded.h"

namespace bifrost::sim::scenario {

namespace {

uint64_t leaf_spine_hosts(const LeafSpineTopology& t) {
  return uint64_t{t.leaves} * t.hosts_per_leaf;
}

// (class name, link) pairs of a topology, "host" first.
using Classes = std::vector<std::pair<std::string_view, const LinkSpec*>>;

Classes classes(const Topology& topology) {
  return std::visit(Overloaded{
                        [](const DumbbellTopology& t) -> Classes {
                          return {{"host", &t.host}, {"bottleneck", &t.bottleneck}};
                        },
                        [](const StarTopology& t) -> Classes {
                          return {{"host", &t.host}};
                        },
                        [](const LeafSpineTopology& t) -> Classes {
                          return {{"host", &t.host}, {"fabric", &t.fabric}};
                        },
                        [](const FatTreeTopology& t) -> Classes {
                          // Three tiers: ToR-aggregation links are "fabric", aggregation-core
                          // links "core", both with the fabric_* parameters.
                          if (t.tiers == 2) return {{"host", &t.host}, {"fabric", &t.fabric}};
                          return {{"host", &t.host}, {"fabric", &t.fabric}, {"core", &t.fabric}};
                        },
                        [](const ParkingLotTopology& t) -> Classes {
                          return {{"host", &t.host}, {"chain", &t.chain}};
                        },
                        [](const TwoDcTopology& t) -> Classes {
                          return {{"host", &t.dc.host}, {"fabric", &t.dc.fabric}, {"dci", &t.dci}};
                        },
                        // The class's rate is path_rate: link_class_rate cannot name one
                        // link of several rates (path_rates).
                        [](const MultipathTopology& t) -> Classes {
                          return {{"host", &t.host}, {"path", &t.path}};
                        },
                    },
                    topology);
}

}  // namespace

std::string_view kind_name(const Topology& topology) {
  return std::visit(Overloaded{
                        [](const DumbbellTopology&) { return std::string_view("dumbbell"); },
                        [](const StarTopology&) { return std::string_view("star"); },
                        [](const LeafSpineTopology&) { return std::string_view("leaf_spine"); },
                        [](const FatTreeTopology&) { return std::string_view("fat_tree"); },
                        [](const ParkingLotTopology&) { return std::string_view("parking_lot"); },
                        [](const TwoDcTopology&) { return std::string_view("two_dc"); },
                        [](const MultipathTopology&) { return std::string_view("multipath"); },
                    },
                    topology);
}

uint64_t host_count(const Topology& topology) {
  return std::visit(
      Overloaded{
          [](const DumbbellTopology& t) { return uint64_t{2} * t.hosts_per_side; },
          [](const StarTopology& t) { return uint64_t{t.hosts}; },
          [](const LeafSpineTopology& t) { return leaf_spine_hosts(t); },
          [](const FatTreeTopology& t) {
            const uint64_t per_tor = uint64_t{t.oversubscription} * (t.k / 2);
            const uint64_t tors = t.tiers == 2 ? uint64_t{t.k} : uint64_t{t.k} * (t.k / 2);
            return tors * per_tor;
          },
          [](const ParkingLotTopology& t) { return (uint64_t{t.hops} + 1) * t.hosts_per_switch; },
          [](const TwoDcTopology& t) { return 2 * leaf_spine_hosts(t.dc); },
          [](const MultipathTopology& t) { return uint64_t{2} * t.hosts_per_side; },
      },
      topology);
}

std::vector<std::string_view> link_classes(const Topology& topology) {
  std::vector<std::string_view> names;
  for (const auto& [name, link] : classes(topology)) names.push_back(name);
  return names;
}

Rate link_class_rate(const Topology& topology, std::string_view name) {
  return link_class_spec(topology, name).rate;
}

const LinkSpec& link_class_spec(const Topology& topology, std::string_view name) {
  for (const auto& [class_name, link] : classes(topology)) {
    if (class_name == name) return *link;
  }
  throw Error("a {} topology has no link class \"{}\"; valid classes: {}", kind_name(topology),
              name, fmt::join(link_classes(topology), ", "));
}

const LinkSpec& host_link(const Topology& topology) {
  return *classes(topology).front().second;
}

}  // namespace bifrost::sim::scenario
