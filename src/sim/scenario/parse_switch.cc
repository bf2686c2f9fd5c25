#include <fmt/format.h>

#include <array>
#include <span>
#include <vector>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 7> kSwitchKeys = {"buffer", "alpha",        "latency", "ecn",
                                                         "pfc",    "flow_control", "border"};
constexpr std::array<std::string_view, 4> kEcnKeys = {"enabled", "kmin", "kmax", "pmax"};
constexpr std::array<std::string_view, 2> kThresholds = {"dynamic", "static"};
constexpr std::array<std::string_view, 4> kPfcStaticKeys = {"threshold", "xoff", "xon", "headroom"};
constexpr std::array<std::string_view, 3> kPfcDynamicKeys = {"threshold", "resume_offset",
                                                             "headroom"};

// `lead` ("enabled" or "kind") first, then the keys of the threshold kind.
std::vector<std::string_view> pfc_keys(std::string_view lead,
                                       std::span<const std::string_view> rest) {
  std::vector<std::string_view> keys = {lead};
  keys.insert(keys.end(), rest.begin(), rest.end());
  return keys;
}

std::optional<EcnConfig> parse_ecn(const TableReader& r, Bytes buffer) {
  r.allow_only(kEcnKeys);
  if (!r.boolean("enabled").value_or(true)) return std::nullopt;
  EcnConfig ecn;
  ecn.kmin = r.required(r.bytes("kmin"), "kmin");
  ecn.kmax = r.required(r.bytes("kmax"), "kmax");
  ecn.pmax = r.required(r.number("pmax"), "pmax");
  if (ecn.kmin > ecn.kmax) {
    r.fail("kmin",
           fmt::format("{} is above kmax ({})", bytes_text(ecn.kmin), bytes_text(ecn.kmax)));
  }
  if (ecn.kmax > buffer) {
    r.fail("kmax", fmt::format("{} is above the switch buffer ({})", bytes_text(ecn.kmax),
                               bytes_text(buffer)));
  }
  if (!(ecn.pmax > 0 && ecn.pmax <= 1)) {
    r.fail("pmax",
           fmt::format("{} is out of range; valid values: greater than 0, at most 1", ecn.pmax));
  }
  return ecn;
}

}  // namespace

std::string bytes_text(Bytes b) {
  return fmt::format("{} bytes", b.count());
}

PfcConfig parse_pfc(const TableReader& r, Bytes buffer, Bytes mtu, std::string_view lead_key) {
  const std::string threshold = r.choice("threshold", kThresholds).value_or("dynamic");
  PfcConfig pfc;
  pfc.enabled = true;
  if (threshold == "static") {
    r.allow_only(pfc_keys(lead_key, kPfcStaticKeys), " for threshold \"static\"");
    pfc.threshold = PfcThreshold::static_bytes;
    pfc.xoff = r.required(r.positive_bytes("xoff"), "xoff");
    pfc.xon = r.required(r.bytes("xon"), "xon");
    if (pfc.xon > pfc.xoff) {
      r.fail("xon", fmt::format("{} is above xoff ({}); traffic resumes below where it paused",
                                bytes_text(pfc.xon), bytes_text(pfc.xoff)));
    }
    if (pfc.xoff >= buffer) {
      r.fail("xoff", fmt::format("{} is not below the switch buffer ({})", bytes_text(pfc.xoff),
                                 bytes_text(buffer)));
    }
  } else {
    r.allow_only(pfc_keys(lead_key, kPfcDynamicKeys), " for threshold \"dynamic\"");
    pfc.threshold = PfcThreshold::dynamic;
    pfc.resume_offset = r.bytes("resume_offset").value_or(mtu * 2);
    if (pfc.resume_offset >= buffer) {
      r.fail("resume_offset", fmt::format("{} is not below the switch buffer ({})",
                                          bytes_text(pfc.resume_offset), bytes_text(buffer)));
    }
  }
  pfc.headroom = r.bytes("headroom");
  if (pfc.headroom && *pfc.headroom >= buffer) {
    r.fail("headroom", fmt::format("{} is not below the switch buffer ({})",
                                   bytes_text(*pfc.headroom), bytes_text(buffer)));
  }
  return pfc;
}

SwitchConfig parse_switch(const TableReader& r, Bytes mtu, const Topology& topology) {
  r.allow_only(kSwitchKeys);
  SwitchConfig s;
  if (auto buffer = r.positive_bytes("buffer")) s.buffer = *buffer;
  if (auto alpha = r.number("alpha")) {
    if (*alpha <= 0) {
      r.fail("alpha", fmt::format("{} is out of range; valid values: greater than 0", *alpha));
    }
    s.alpha = *alpha;
  }
  if (auto latency = r.time("latency")) s.latency = *latency;
  if (const toml::table* ecn = r.subtable("ecn")) {
    s.ecn = parse_ecn(TableReader(*ecn, r.path() + ".ecn", r.file()), s.buffer);
  }
  if (const toml::table* pfc = r.subtable("pfc")) {
    const TableReader pr(*pfc, r.path() + ".pfc", r.file());
    const bool enabled = pr.boolean("enabled").value_or(true);
    s.pfc = parse_pfc(pr, s.buffer, mtu, "enabled");
    s.pfc.enabled = enabled;
  }
  // The border's partition first: it lifts the cap on the dci links' own buffers.
  const toml::table* border = r.subtable("border");
  const std::optional<TableReader> br =
      border ? std::optional<TableReader>(std::in_place, *border, r.path() + ".border", r.file())
             : std::nullopt;
  if (br) s.border = parse_border(*br, mtu, topology);
  if (const toml::table* fc = r.subtable("flow_control")) {
    s.flow_control = parse_flow_control(TableReader(*fc, r.path() + ".flow_control", r.file()), s,
                                        mtu, topology);
  }
  if (br) check_border_flow_control(*br, s);
  return s;
}

}  // namespace bifrost::sim::scenario::detail
