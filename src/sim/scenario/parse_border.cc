// [switch.border]: the two_dc border (DCI) switches' buffer, a static partition with no shared
// pool (scenario.h, BorderBufferConfig).
#include <fmt/format.h>

#include <array>
#include <limits>
#include <variant>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 2> kBorderKeys = {"partition", "queue_buffer"};
constexpr std::array<std::string_view, 2> kPartitions = {"shared", "static"};
// The link classes that end at a two_dc border switch.
constexpr std::array<std::string_view, 2> kBorderClasses = {"fabric", "dci"};

const PfcConfig* pfc_of_class(const SwitchConfig& s, std::string_view link_class) {
  for (const auto& fc : s.flow_control) {
    if (fc.link_class == link_class) return std::get_if<PfcConfig>(&fc.kind);
  }
  return s.pfc.enabled ? &s.pfc : nullptr;
}

}  // namespace

std::optional<BorderBufferConfig> parse_border(const TableReader& r, Bytes mtu,
                                               const Topology& topology) {
  r.allow_only(kBorderKeys);
  if (!std::holds_alternative<TwoDcTopology>(topology)) {
    r.fail_table(
        fmt::format("only a two_dc topology has border switches, not {}", kind_name(topology)));
  }
  const std::string partition = r.required(r.choice("partition", kPartitions), "partition");
  if (partition == "shared") {
    if (r.has("queue_buffer")) r.fail("queue_buffer", "is used only with partition = \"static\"");
    return std::nullopt;  // the border switches share [switch]'s buffer like every other
  }
  BorderBufferConfig border;
  border.queue_buffer = r.required(r.bytes("queue_buffer"), "queue_buffer");
  if (border.queue_buffer < mtu) {
    r.fail("queue_buffer", fmt::format("{} cannot hold one {}-byte packet, so no lossy frame "
                                       "could ever cross a border switch",
                                       bytes_text(border.queue_buffer), mtu.count()));
  }
  return border;
}

void check_border_flow_control(const TableReader& r, const SwitchConfig& s) {
  if (!s.border) return;
  for (std::string_view link_class : kBorderClasses) {
    const PfcConfig* pfc = pfc_of_class(s, link_class);
    if (pfc != nullptr && pfc->threshold == PfcThreshold::dynamic) {
      r.fail_table(fmt::format(
          "partition \"static\" has no shared pool, but PFC on the {} links (which end at the "
          "border switches) uses threshold \"dynamic\" (alpha x the free shared bytes); give "
          "it threshold = \"static\"",
          link_class));
    }
  }
}

Bytes port_buffer_cap(const SwitchConfig& s, const Topology& topology,
                      std::string_view link_class) {
  // In a static partition the buffer is the sum of the ports' shares: nothing to be below.
  if (s.border && std::holds_alternative<TwoDcTopology>(topology) && link_class == "dci") {
    return Bytes(std::numeric_limits<uint64_t>::max());
  }
  return s.buffer;
}

}  // namespace bifrost::sim::scenario::detail
