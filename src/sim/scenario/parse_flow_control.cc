// [switch.flow_control.<class>]: the flow control of the links of one class. What needs the
// network elements' sizing (Theorem 1's buffer bound, the switch buffer's partitions) is checked
// when the network is built, with the location kept in LinkClassFlowControl::where.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "bifrost/core/rate.h"
#include "bifrost/sim/scenario/units.h"
#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 5> kKinds = {"pfc", "dci", "cbfc", "swing", "none"};
constexpr std::array<std::string_view, 6> kDciKeys = {"kind",   "slot",  "leak_every",
                                                      "buffer", "guard", "literal"};
constexpr std::array<std::string_view, 4> kCbfcKeys = {"kind", "buffer", "update_period",
                                                       "field_bits"};
constexpr std::array<std::string_view, 7> kSwingKeys = {
    "kind", "buffer", "xoff", "xon", "relay_delay", "relay_length", "trigger"};
constexpr std::array<std::string_view, 2> kSwingTriggers = {"relay", "threshold"};
constexpr std::array<std::string_view, 1> kNoneKeys = {"kind"};
constexpr int64_t kMaxLeakEvery = 65536;
// A pause frame carries at most 0xFFFF quanta of 512 bit times (64 bytes on the wire).
constexpr uint64_t kMaxPauseBytes = 0xFFFFull * 64;

std::string time_text(Time t) {
  return fmt::format("{}us", static_cast<double>(t.picoseconds()) / 1e6);
}

DciFlowControl parse_dci(const TableReader& r, const SwitchConfig& switches, Bytes cap,
                         const LinkSpec& link, std::string_view link_class) {
  r.allow_only(kDciKeys, " for kind \"dci\"");
  DciFlowControl dci;
  if (auto slot = r.positive_time("slot")) dci.slot = *slot;
  // A default slot can be wrong for the link too; then the message points at `kind`.
  const std::string_view at = r.has("slot") ? "slot" : "kind";
  const std::string slot = fmt::format(
      "{} of {}", r.has("slot") ? "a time slot" : "the default time slot", time_text(dci.slot));
  if (dci.slot >= link.delay) {
    r.fail(at, fmt::format("{} is not shorter than the one-way delay of the {} links ({}); DCI "
                           "needs T below it (on a short link use pfc)",
                           slot, link_class, time_text(link.delay)));
  }
  if (dci.slot <= switches.latency) {
    r.fail(at, fmt::format("{} is not longer than the switch latency ({}); the queue read at a "
                           "slot must include the previous slot's arrivals",
                           slot, time_text(switches.latency)));
  }
  const Time max_pause = serialization_time(Bytes(kMaxPauseBytes), link.rate);
  if (dci.slot >= max_pause) {
    r.fail(at, fmt::format("{} does not fit a pause frame's 16-bit field, at most {} at {} Gb/s",
                           slot, time_text(max_pause), link.rate.gbps()));
  }
  if (auto k = r.integer("leak_every", 0, kMaxLeakEvery))
    dci.leak_every = static_cast<uint32_t>(*k);
  dci.buffer = r.positive_bytes("buffer");
  if (dci.buffer && *dci.buffer >= cap) {
    r.fail("buffer", fmt::format("{} is not below the switch buffer ({})", bytes_text(*dci.buffer),
                                 bytes_text(cap)));
  }
  dci.literal = r.boolean("literal").value_or(false);
  // The guard is bifrost's deviation; the printed algorithm's full pause is one slot.
  if (dci.literal && r.has("guard")) {
    r.fail("guard", "is not used with literal = true (Algorithm 1 as printed has no guard)");
  }
  dci.guard = r.boolean("guard").value_or(!dci.literal);
  return dci;
}

CbfcFlowControl parse_cbfc(const TableReader& r, Bytes cap) {
  r.allow_only(kCbfcKeys, " for kind \"cbfc\"");
  CbfcFlowControl cbfc;
  cbfc.buffer = r.required(r.positive_bytes("buffer"), "buffer");
  if (cbfc.buffer < Bytes(64)) {
    r.fail("buffer",
           fmt::format("{} cannot hold one 64-byte credit block", bytes_text(cbfc.buffer)));
  }
  if (cbfc.buffer >= cap) {
    r.fail("buffer", fmt::format("{} is not below the switch buffer ({})", bytes_text(cbfc.buffer),
                                 bytes_text(cap)));
  }
  if (auto period = r.positive_time("update_period")) cbfc.update_period = *period;
  if (auto bits = r.integer("field_bits", 0, 32)) {
    if (*bits == 1) {
      r.fail("field_bits",
             "1 is not valid; valid values: 0 (the ideal variant, no field limit) or 2 to 32");
    }
    cbfc.field_bits = static_cast<uint32_t>(*bits);
  }
  return cbfc;
}

// The relays go between two switches: a class with a host end has nowhere to put one.
SwingFlowControl parse_swing(const TableReader& r, std::string_view link_class) {
  r.allow_only(kSwingKeys, " for kind \"swing\"");
  if (link_class == "host") {
    r.fail("kind",
           "\"swing\" puts a relay between two switches; host links have a host end "
           "(use it on a switch-to-switch class such as dci)");
  }
  SwingFlowControl swing;
  if (auto trigger = r.choice("trigger", kSwingTriggers)) {
    swing.trigger = *trigger == "threshold" ? SwingFlowControl::Trigger::kThreshold
                                            : SwingFlowControl::Trigger::kRelay;
  }
  swing.buffer = r.positive_bytes("buffer");
  if (auto xoff = r.positive_bytes("xoff")) swing.xoff = *xoff;
  if (auto xon = r.bytes("xon")) swing.xon = *xon;
  if (swing.xon > swing.xoff) {
    r.fail(r.has("xon") ? "xon" : "xoff",
           fmt::format("xon ({}) is above xoff ({}); the relay would never resume",
                       bytes_text(swing.xon), bytes_text(swing.xoff)));
  }
  if (r.has("relay_delay") && r.has("relay_length")) {
    r.fail("relay_length", "give either relay_delay or relay_length, not both");
  }
  if (auto delay = r.time("relay_delay")) {
    swing.relay_delay = *delay;
  } else if (auto length = r.length("relay_length")) {
    swing.relay_delay = fiber_delay(*length);
  }
  return swing;
}

}  // namespace

std::vector<LinkClassFlowControl> parse_flow_control(const TableReader& r,
                                                     const SwitchConfig& switches, Bytes mtu,
                                                     const Topology& topology) {
  const auto classes = link_classes(topology);
  std::vector<LinkClassFlowControl> out;
  for (auto&& [key, value] : r.table()) {
    const std::string_view name = key.str();
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) {
      r.fail(name, fmt::format("\"{}\" is not a link class of a {} topology; valid classes: {}",
                               name, kind_name(topology), join(classes)));
    }
    const toml::table* table = r.subtable(name);
    const TableReader c(*table, fmt::format("{}.{}", r.path(), name), r.file());
    const std::string kind = c.required(c.choice("kind", kKinds), "kind");
    LinkClassFlowControl fc;
    fc.link_class = std::string(name);
    fc.where = fmt::format("{}: {}", location(r.file(), table->source()), c.path());
    const Bytes cap = port_buffer_cap(switches, topology, name);
    if (kind == "pfc") {
      fc.kind = parse_pfc(c, cap, mtu, "kind");
    } else if (kind == "dci") {
      fc.kind = parse_dci(c, switches, cap, link_class_spec(topology, name), name);
    } else if (kind == "cbfc") {
      fc.kind = parse_cbfc(c, cap);
    } else if (kind == "swing") {
      fc.kind = parse_swing(c, name);
    } else {
      c.allow_only(kNoneKeys, " for kind \"none\"");
      fc.kind = NoFlowControl{};
    }
    out.push_back(std::move(fc));
  }
  return out;
}

}  // namespace bifrost::sim::scenario::detail
