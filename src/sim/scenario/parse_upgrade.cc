// [upgrade]: the non-stop upgrade from plain RC to Bifröst, then off PFC and DCQCN (Fig. 12).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <variant>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {
constexpr std::array<std::string_view, 2> kKeys = {"to_bifrost", "lossless_off"};
}  // namespace

UpgradeConfig parse_upgrade(const TableReader& r, const Scenario& s) {
  r.allow_only(kKeys);
  if (s.transport.kind == TransportKind::rc || s.transport.kind == TransportKind::uc ||
      s.transport.kind == TransportKind::rogue_rc || s.transport.kind == TransportKind::rogue_uc) {
    r.fail_table(
        "upgrades services to Bifröst; set [transport] kind to \"bifrost-uc\" or "
        "\"bifrost-rc\" (the target)");
  }
  const bool has_loop = std::any_of(s.workloads.begin(), s.workloads.end(), [](const auto& w) {
    return std::holds_alternative<ClosedLoopWorkload>(w.spec);
  });
  if (!has_loop) {
    r.fail_table(
        "moves closed-loop requests (RPCs) between transports; add a [[workload]] of "
        "kind \"closed_loop\"");
  }
  UpgradeConfig u;
  u.to_bifrost = r.required(r.time("to_bifrost"), "to_bifrost");
  if (u.to_bifrost < Time::zero()) r.fail("to_bifrost", "must not be negative");
  u.lossless_off = r.time("lossless_off");
  if (u.lossless_off && *u.lossless_off < u.to_bifrost) {
    r.fail("lossless_off",
           "comes before to_bifrost; PFC and DCQCN go off only once the "
           "services run on Bifröst");
  }
  if (u.lossless_off && !s.switches.pfc.enabled && !s.nic.dcqcn) {
    r.fail("lossless_off",
           "turns PFC and DCQCN off, but neither [switch.pfc] nor [nic] dcqcn "
           "is on");
  }
  return u;
}

}  // namespace bifrost::sim::scenario::detail
