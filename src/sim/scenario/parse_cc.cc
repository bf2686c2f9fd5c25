// [transport] cc = "kind" and the [transport.cc] table: the software congestion control and
// its parameter block (transport::CcConfig). Each key is checked where it stands: its own
// range and, among the keys given together, their order. What also depends on the path (a
// window against the derived BDP, DCQCN's minimum rate against the line rate) is checked by
// the transport when the run builds its configuration.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <functional>
#include <span>
#include <vector>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

using transport::CcConfig;
using transport::CcKind;

// swift-md is swift with loss_to_minimum = false: its keys are swift's without the last.
constexpr std::array<std::string_view, 15> kSwiftKeys = {"kind",
                                                         "target_delay",
                                                         "target_slack",
                                                         "ai",
                                                         "beta",
                                                         "max_mdf",
                                                         "min_window",
                                                         "initial_window",
                                                         "max_window",
                                                         "target_follows_min_rtt",
                                                         "loss_needs_queuing",
                                                         "loss_gate",
                                                         "random_loss_tolerance",
                                                         "loss_gate_memory",
                                                         "loss_to_minimum"};
constexpr std::array<std::string_view, 11> kDcqcnKeys = {"kind",
                                                         "g",
                                                         "min_rate",
                                                         "alpha_update_period",
                                                         "rate_reduce_period",
                                                         "increase_period",
                                                         "increase_bytes",
                                                         "fast_recovery_stages",
                                                         "additive_increase",
                                                         "hyper_increase",
                                                         "cnp_interval"};
constexpr std::array<std::string_view, 8> kVegasKeys = {
    "kind",           "alpha",         "beta",           "literal",
    "initial_window", "loss_decrease", "base_rtt_floor", "rate_basis"};
constexpr std::array<std::string_view, 9> kTimelyKeys = {
    "kind",    "alpha", "beta", "t_low", "t_high", "min_rtt", "hai_threshold", "additive_increase",
    "min_rate"};
constexpr std::array<std::string_view, 5> kDctcpKeys = {"kind", "g", "initial_window", "min_window",
                                                        "max_window"};
constexpr std::array<std::string_view, 1> kNoneKeys = {"kind"};
// RoGUE's Vegas keys as they stand directly in [transport] (literal spelt literal_vegas).
constexpr std::array<std::string_view, 6> kRogueVegasKeys = {
    "alpha", "beta", "literal_vegas", "initial_window", "base_rtt_floor", "rate_basis"};
// What Vegas's pacing rate divides the window by (cc/vegas.h, VegasRateBasis).
constexpr std::array<std::string_view, 2> kVegasRateBases = {"base_rtt", "current_rtt"};

std::span<const std::string_view> keys_of(CcKind kind) {
  switch (kind) {
    case CcKind::swift:
      return kSwiftKeys;
    case CcKind::swift_md:
      return std::span(kSwiftKeys).first(kSwiftKeys.size() - 1);
    case CcKind::dcqcn:
      return kDcqcnKeys;
    case CcKind::vegas:
      return kVegasKeys;
    case CcKind::timely:
      return kTimelyKeys;
    case CcKind::dctcp:
      return kDctcpKeys;
    case CcKind::none:
      break;
  }
  return kNoneKeys;
}

bool contains(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

CcKind kind_named(std::string_view name) {
  const auto& names = transport::kCcKindNames;
  return static_cast<CcKind>(std::find(names.begin(), names.end(), name) - names.begin());
}

std::string quoted(CcKind kind) {
  return fmt::format("\"{}\"", transport::to_string(kind));
}

// A key of another kind's block is named as such rather than merely unknown.
void allow_only_keys_of(const TableReader& c, CcKind kind) {
  for (auto&& [key, value] : c.table()) {
    if (contains(keys_of(kind), key.str())) continue;
    std::vector<std::string> owners;
    for (size_t k = 0; k < transport::kCcKindNames.size(); ++k) {
      if (contains(keys_of(static_cast<CcKind>(k)), key.str())) {
        owners.push_back(quoted(static_cast<CcKind>(k)));
      }
    }
    if (!owners.empty()) {
      c.fail(key.str(), fmt::format("belongs to kind{} {}, not to kind {}; valid keys for {}: {}",
                                    owners.size() > 1 ? "s" : "", fmt::join(owners, ", "),
                                    quoted(kind), quoted(kind), join(keys_of(kind))));
    }
  }
  c.allow_only(keys_of(kind), fmt::format(" for kind {}", quoted(kind)));
}

// A number that must satisfy `valid`, described by `valid_text` in the message.
std::optional<double> number_where(const TableReader& r, std::string_view key,
                                   const std::function<bool(double)>& valid,
                                   std::string_view valid_text) {
  const std::optional<double> v = r.number(key);
  if (v && !valid(*v))
    r.fail(key, fmt::format("{} is not valid; valid values: {}", *v, valid_text));
  return v;
}

std::optional<uint64_t> byte_count(std::optional<Bytes> b) {
  if (!b) return std::nullopt;
  return b->count();
}

void swift_keys(const TableReader& c, transport::SwiftBlock& s) {
  transport::SwiftParams& p = s.params;
  s.target_delay = c.positive_time("target_delay");
  s.target_slack = c.non_negative_time("target_slack");
  if (auto ai = number_where(
          c, "ai", [](double v) { return v > 0; }, "> 0")) {
    p.additive_increase = *ai;
  }
  if (auto beta = number_where(
          c, "beta", [](double v) { return v >= 0; }, ">= 0"))
    p.beta = *beta;
  if (auto mdf = number_where(
          c, "max_mdf", [](double v) { return v > 0 && v <= 1; }, "(0, 1]")) {
    p.max_decrease = *mdf;
  }
  s.min_window = byte_count(c.positive_bytes("min_window"));
  s.initial_window = byte_count(c.positive_bytes("initial_window"));
  s.max_window = byte_count(c.positive_bytes("max_window"));
  const std::array<std::pair<std::string_view, std::optional<uint64_t>>, 3> windows = {
      {{"min_window", s.min_window},
       {"initial_window", s.initial_window},
       {"max_window", s.max_window}}};
  for (size_t i = 0; i < windows.size(); ++i) {
    for (size_t j = i + 1; j < windows.size(); ++j) {
      const auto& [low, low_value] = windows[i];
      const auto& [high, high_value] = windows[j];
      if (low_value && high_value && *low_value > *high_value) {
        c.fail(high, fmt::format("{} bytes is below {} ({} bytes)", *high_value, low, *low_value));
      }
    }
  }
  if (auto follow = c.boolean("target_follows_min_rtt")) p.target_follows_min_rtt = *follow;
  if (auto minimum = c.boolean("loss_to_minimum")) p.loss_to_minimum = *minimum;
  if (auto queuing = c.boolean("loss_needs_queuing")) p.loss_needs_queuing = *queuing;
  if (auto gate = c.boolean("loss_gate")) p.loss_gate = *gate;
  if (auto tolerance = number_where(
          c, "random_loss_tolerance", [](double v) { return v >= 0 && v < 1; }, "[0, 1)")) {
    p.random_loss_tolerance = *tolerance;
  }
  if (auto memory = number_where(
          c, "loss_gate_memory", [](double v) { return v > 1; }, "> 1 (packets)")) {
    p.loss_gate_memory = *memory;
  }
}

void dcqcn_keys(const TableReader& c, transport::DcqcnBlock& d) {
  // [nic]'s DCQCN defaults, which tests/sim holds equal to rnic::DcqcnConfig's.
  DcqcnSpec spec;
  read_dcqcn_constants(c, "", spec);
  const rnic::DcqcnConfig path_rates = d.params.rp;
  d.params.rp = spec.reaction_point(path_rates.line_rate);
  // The minimum rate is a path field (mlx5's, at most the line rate): given, it goes to the
  // block's override.
  d.params.rp.min_rate = path_rates.min_rate;
  if (c.has("min_rate")) d.min_rate = spec.min_rate;
  d.params.min_time_between_cnps = spec.cnp_interval;
}

// Vegas's keys in `r`; `literal_key` is "literal" in [transport.cc], "literal_vegas" in
// RoGUE's [transport].
void vegas_keys(const TableReader& r, std::string_view literal_key, transport::VegasParams& v) {
  const auto non_negative = [](double x) { return x >= 0; };
  if (auto alpha = number_where(r, "alpha", non_negative, ">= 0 (packets)")) v.alpha = *alpha;
  if (auto beta = number_where(r, "beta", non_negative, ">= 0 (packets)")) v.beta = *beta;
  if (auto literal = r.boolean(literal_key)) v.literal = *literal;
  if (!v.literal && v.alpha > v.beta) {
    r.fail("alpha", fmt::format("alpha {} is above beta {}: Vegas increases below alpha and "
                                "decreases above beta (set {} = true for the paper's rules as "
                                "written)",
                                v.alpha, v.beta, literal_key));
  }
  if (auto w = r.integer("initial_window", 1, 1 << 20)) {
    v.initial_window_packets = static_cast<uint32_t>(*w);
  }
  if (auto d = number_where(
          r, "loss_decrease", [](double x) { return x > 0 && x < 1; },
          "(0, 1): the window's factor per lost batch")) {
    v.loss_decrease = *d;
  }
  if (auto floor = r.non_negative_time("base_rtt_floor")) v.base_rtt_floor = *floor;
  if (auto basis = r.choice("rate_basis", kVegasRateBases)) {
    v.rate_basis = *basis == "current_rtt" ? transport::VegasRateBasis::current_rtt
                                           : transport::VegasRateBasis::base_rtt;
  }
}

void timely_keys(const TableReader& c, transport::TimelyBlock& t) {
  transport::TimelyParams& p = t.params;
  const auto unit = [](double v) { return v > 0 && v <= 1; };
  if (auto alpha = number_where(c, "alpha", unit, "(0, 1]")) p.alpha = *alpha;
  if (auto beta = number_where(c, "beta", unit, "(0, 1]")) p.beta = *beta;
  if (auto low = c.positive_time("t_low")) p.t_low = *low;
  if (auto high = c.positive_time("t_high")) p.t_high = *high;
  if (p.t_high < p.t_low) {
    c.fail(c.has("t_high") ? "t_high" : "t_low",
           fmt::format("t_high ({} us) is below t_low ({} us)", p.t_high.microseconds(),
                       p.t_low.microseconds()));
  }
  if (auto min_rtt = c.positive_time("min_rtt")) p.min_rtt = *min_rtt;
  if (auto n = c.integer("hai_threshold", 1, 1 << 20)) p.hai_threshold = static_cast<uint32_t>(*n);
  t.additive_increase = c.positive_rate("additive_increase");
  t.min_rate = c.positive_rate("min_rate");
}

void dctcp_keys(const TableReader& c, transport::DctcpBlock& d) {
  transport::DctcpParams& p = d.params;
  if (auto g = number_where(
          c, "g", [](double v) { return v > 0 && v <= 1; }, "(0, 1]")) {
    p.g = *g;
  }
  if (auto w = c.integer("initial_window", 1, 1 << 20)) {
    p.initial_window_packets = static_cast<uint32_t>(*w);
  }
  if (auto w = c.integer("min_window", 1, 1 << 20))
    p.min_window_packets = static_cast<uint32_t>(*w);
  if (p.min_window_packets > p.initial_window_packets) {
    c.fail("min_window", fmt::format("{} packets is above initial_window ({} packets)",
                                     p.min_window_packets, p.initial_window_packets));
  }
  d.max_window_bytes = byte_count(c.positive_bytes("max_window"));
}

void block_keys(const TableReader& c, CcConfig& cc) {
  allow_only_keys_of(c, cc.kind);
  switch (cc.kind) {
    case CcKind::swift:
    case CcKind::swift_md:
      swift_keys(c, cc.swift);
      return;
    case CcKind::dcqcn:
      dcqcn_keys(c, cc.dcqcn);
      return;
    case CcKind::vegas:
      vegas_keys(c, "literal", cc.vegas.params);
      return;
    case CcKind::timely:
      timely_keys(c, cc.timely);
      return;
    case CcKind::dctcp:
      dctcp_keys(c, cc.dctcp);
      return;
    case CcKind::none:
      return;
  }
}

bool is_rogue(TransportKind t) {
  return t == TransportKind::rogue_rc || t == TransportKind::rogue_uc;
}

// The kind against the transport and the NIC; `key` is where the kind was given.
void check_kind(const TableReader& r, std::string_view key, CcKind kind, const NicConfig& nic,
                TransportKind transport) {
  if (is_rogue(transport)) {
    if (kind != CcKind::vegas) {
      r.fail(key,
             fmt::format("{} is not RoGUE's: rogue-rc and rogue-uc run \"vegas\"", quoted(kind)));
    }
    return;
  }
  if (transport::needs_ecn_echo(kind) && transport != TransportKind::bifrost_uc) {
    r.fail(key,
           fmt::format(
               "{} needs kind \"bifrost-uc\": its ECN echo rides on software ACKs{}", quoted(kind),
               kind == CcKind::dcqcn ? " (over RC, set dcqcn = true in [nic] instead)" : ""));
  }
  const bool paces = kind == CcKind::dcqcn || kind == CcKind::vegas || kind == CcKind::timely;
  if (paces && nic.dcqcn) {
    r.fail(key, fmt::format("{} and [nic] dcqcn = true would both drive the QPs' rate "
                            "limiters; choose one",
                            quoted(kind)));
  }
}

}  // namespace

CcConfig parse_cc(const TableReader& r, const NicConfig& nic, TransportKind transport,
                  const CcConfig& start) {
  CcConfig cc = start;
  if (is_rogue(transport)) cc.kind = CcKind::vegas;
  const toml::node* node = r.find("cc");
  if (node == nullptr || !node->is_table()) {
    if (auto name = r.choice("cc", transport::kCcKindNames)) {
      cc.kind = kind_named(*name);
      check_kind(r, "cc", cc.kind, nic, transport);
    }
    if (is_rogue(transport)) vegas_keys(r, "literal_vegas", cc.vegas.params);
    return cc;
  }
  const TableReader c(*node->as_table(), r.path() + ".cc", r.file());
  cc.kind = kind_named(c.required(c.choice("kind", transport::kCcKindNames), "kind"));
  check_kind(c, "kind", cc.kind, nic, transport);
  if (is_rogue(transport)) {
    for (const std::string_view key : kRogueVegasKeys) {
      if (r.has(key)) {
        r.fail(key, "Vegas's keys go either in [transport] or in [transport.cc], not both");
      }
    }
  }
  block_keys(c, cc);
  return cc;
}

}  // namespace bifrost::sim::scenario::detail
