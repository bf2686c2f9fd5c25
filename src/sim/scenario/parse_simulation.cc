#include <fmt/format.h>

#include <array>
#include <limits>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {
constexpr std::array<std::string_view, 5> kKeys = {"seed", "duration", "stop", "mtu", "progress"};
constexpr std::array<std::string_view, 2> kStopRules = {"flows_done", "duration"};
// Ethernet payloads from a minimal frame up to a jumbo frame.
constexpr uint64_t kMinMtu = 64;
constexpr uint64_t kMaxMtu = 9216;
}  // namespace

SimulationConfig parse_simulation(const TableReader& r) {
  r.allow_only(kKeys);
  SimulationConfig s;
  if (auto seed = r.integer("seed", 0, std::numeric_limits<int64_t>::max())) {
    s.seed = static_cast<uint64_t>(*seed);
  }
  s.duration = r.positive_time("duration");
  if (auto stop = r.choice("stop", kStopRules)) {
    s.stop = *stop == "duration" ? StopRule::duration : StopRule::flows_done;
    if (s.stop == StopRule::duration && !s.duration) {
      r.fail("stop", "\"duration\" needs a \"duration\" key in [simulation]");
    }
  }
  if (auto mtu = r.bytes("mtu")) {
    if (mtu->count() < kMinMtu || mtu->count() > kMaxMtu) {
      r.fail("mtu", fmt::format("{} bytes is out of range; valid values: {} to {} bytes",
                                mtu->count(), kMinMtu, kMaxMtu));
    }
    s.mtu = *mtu;
  }
  s.progress = r.positive_time("progress");
  return s;
}

}  // namespace bifrost::sim::scenario::detail
