// [routing]: how switches choose among equal-cost next hops (scenario/topology.h RoutingMode).
#include <array>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {
constexpr std::array<std::string_view, 1> kKeys = {"mode"};
constexpr std::array<std::string_view, 2> kModes = {"ecmp", "source"};
}  // namespace

RoutingMode parse_routing(const TableReader& r, uint32_t host_aliases) {
  r.allow_only(kKeys);
  const std::string mode = r.choice("mode", kModes).value_or("ecmp");
  if (mode == "ecmp") return RoutingMode::ecmp;
  if (host_aliases == 0) {
    r.fail("mode",
           "\"source\" pins host aliases to paths, and the hosts have none: set host_aliases "
           ">= 1 in [topology]");
  }
  return RoutingMode::source;
}

}  // namespace bifrost::sim::scenario::detail
