#include <fmt/format.h>

#include <array>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {
constexpr std::array<std::string_view, 31> kKeys = {"model",
                                                    "profile",
                                                    "recovery",
                                                    "dcqcn",
                                                    "ack_every_packets",
                                                    "ack_delay",
                                                    "timeout",
                                                    "retry_cnt",
                                                    "bdp_packets",
                                                    "fasr_units",
                                                    "fasr_blocks",
                                                    "fasr_block_bits",
                                                    "rto_low",
                                                    "rto_high",
                                                    "dcqcn_g",
                                                    "dcqcn_min_rate",
                                                    "dcqcn_alpha_update_period",
                                                    "dcqcn_rate_reduce_period",
                                                    "dcqcn_increase_period",
                                                    "dcqcn_increase_bytes",
                                                    "dcqcn_fast_recovery_stages",
                                                    "dcqcn_additive_increase",
                                                    "dcqcn_hyper_increase",
                                                    "dcqcn_cnp_interval",
                                                    "dcqcn_cnp_scope",
                                                    "rate_change_delay",
                                                    "per_priority_limiters",
                                                    "transmit_timestamps",
                                                    "rc_ack_dscp",
                                                    "fasr_lean_header",
                                                    "qp_rate"};
// The DCQCN keys: "dcqcn_g" .. "dcqcn_cnp_scope".
constexpr size_t kFirstDcqcnKey = 14;
constexpr size_t kEndDcqcnKeys = 25;
constexpr std::array<std::string_view, 2> kModels = {"line_rate", "rnic"};
constexpr std::array<std::string_view, 2> kCnpScopes = {"qp", "port"};
constexpr std::array<std::string_view, 4> kEngines = {"gbn", "irn", "srnic", "fasr"};
constexpr std::array<std::string_view, 3> kPoolKeys = {"fasr_units", "fasr_blocks",
                                                       "fasr_block_bits"};
constexpr std::array<std::string_view, 2> kRtoKeys = {"rto_low", "rto_high"};

std::string time_text(Time t) {
  return fmt::format("{}us", static_cast<double>(t.picoseconds()) / 1e6);
}

bool roce_mtu(uint64_t mtu) {
  return mtu >= 256 && mtu <= 4096 && (mtu & (mtu - 1)) == 0;
}

// IRN's two timeouts (FaSR uses IRN's): RTO_low while few packets are in flight, RTO_high
// otherwise. A long link needs both above its round trip, or every queue fires spurious timeouts.
void parse_rto_keys(const TableReader& r, NicConfig& n) {
  for (const std::string_view key : kRtoKeys) {
    if (n.recovery != "irn" && n.recovery != "fasr" && r.has(key)) {
      r.fail(key, fmt::format("is a timeout of irn and fasr; recovery is \"{}\" (set recovery = "
                              "\"irn\" or \"fasr\")",
                              n.recovery));
    }
  }
  if (auto low = r.positive_time("rto_low")) n.rto_low = *low;
  if (auto high = r.positive_time("rto_high")) n.rto_high = *high;
  if (n.rto_high < n.rto_low) {
    const std::string_view at = r.has("rto_high") ? "rto_high" : "rto_low";
    r.fail(at, fmt::format("rto_high ({}) is below rto_low ({}); the timeout with many packets in "
                           "flight must not be the shorter one",
                           time_text(n.rto_high), time_text(n.rto_low)));
  }
}

// DCQCN's constants, which decide most results with DCQCN on (its rate collapse, its tails).
void parse_dcqcn_keys(const TableReader& r, NicConfig& n) {
  for (size_t i = kFirstDcqcnKey; i < kEndDcqcnKeys; ++i) {
    if (!n.dcqcn && r.has(kKeys[i])) {
      r.fail(kKeys[i], "is a DCQCN constant; DCQCN is off (set dcqcn = true)");
    }
  }
  read_dcqcn_constants(r, "dcqcn_", n.dcqcn_spec);
  if (auto scope = r.choice("dcqcn_cnp_scope", kCnpScopes))
    n.dcqcn_spec.cnp_interval_per_port = *scope == "port";
}

// The window and the pool belong to some engines only: a key another engine would ignore is
// an error rather than a silent no-op.
void parse_engine_keys(const TableReader& r, NicConfig& n) {
  if (n.recovery == "gbn" && r.has("bdp_packets")) {
    r.fail("bdp_packets", "go-back-N has no in-flight cap; it applies to irn, srnic and fasr");
  }
  if (auto bdp = r.integer("bdp_packets", 1, 1 << 22)) n.bdp_packets = static_cast<uint32_t>(*bdp);
  for (const std::string_view key : kPoolKeys) {
    if (n.recovery != "fasr" && r.has(key)) {
      r.fail(key, fmt::format("is FaSR's pool; recovery is \"{}\" (set recovery = \"fasr\")",
                              n.recovery));
    }
  }
  if (auto units = r.integer("fasr_units", 1, 4096)) n.fasr_units = static_cast<uint32_t>(*units);
  if (auto blocks = r.integer("fasr_blocks", 1, 1 << 20)) {
    n.fasr_blocks = static_cast<uint32_t>(*blocks);
  }
  if (auto bits = r.integer("fasr_block_bits", 10, 16)) {
    if (*bits != 10 && *bits != 16) {
      r.fail("fasr_block_bits", fmt::format("{} is not valid; valid choices: 10, 16", *bits));
    }
    n.fasr_block_bits = static_cast<uint32_t>(*bits);
  }
  if (auto lean = r.boolean("fasr_lean_header")) {
    if (n.recovery != "fasr") {
      r.fail("fasr_lean_header",
             fmt::format("sizes FaSR's headers; recovery is \"{}\"", n.recovery));
    }
    n.fasr_lean_header = *lean;
  }
  parse_rto_keys(r, n);
}
}  // namespace

void read_dcqcn_constants(const TableReader& r, std::string_view prefix, DcqcnSpec& d) {
  const auto key = [prefix](std::string_view name) { return fmt::format("{}{}", prefix, name); };
  if (auto g = r.number(key("g"))) {
    if (*g <= 0 || *g >= 1) r.fail(key("g"), fmt::format("{} is not in (0, 1)", *g));
    d.g = *g;
  }
  if (auto rate = r.positive_rate(key("min_rate"))) d.min_rate = *rate;
  if (auto t = r.positive_time(key("alpha_update_period"))) d.alpha_update_period = *t;
  if (auto t = r.positive_time(key("rate_reduce_period"))) d.rate_reduce_period = *t;
  if (auto t = r.positive_time(key("increase_period"))) d.increase_period = *t;
  if (auto b = r.positive_bytes(key("increase_bytes"))) d.increase_bytes = *b;
  if (auto f = r.integer(key("fast_recovery_stages"), 1, 1000)) {
    d.fast_recovery_stages = static_cast<uint32_t>(*f);
  }
  if (auto rate = r.positive_rate(key("additive_increase"))) d.additive_increase = *rate;
  if (auto rate = r.positive_rate(key("hyper_increase"))) d.hyper_increase = *rate;
  if (auto t = r.non_negative_time(key("cnp_interval"))) d.cnp_interval = *t;
}

NicConfig parse_nic(const TableReader& r, Bytes mtu, const Topology& topology) {
  r.allow_only(kKeys);
  NicConfig n;
  if (auto model = r.choice("model", kModels)) {
    n.model = *model == "rnic" ? NicModel::rnic : NicModel::line_rate;
    if (n.model == NicModel::rnic && !roce_mtu(mtu.count())) {
      r.fail("model",
             fmt::format("the rnic model needs a RoCE path MTU: set simulation.mtu to 256, 512, "
                         "1024, 2048 or 4096 bytes (it is {})",
                         mtu.count()));
    }
  }
  if (auto engine = r.choice("recovery", kEngines)) n.recovery = *engine;
  if (auto dcqcn = r.boolean("dcqcn")) n.dcqcn = *dcqcn;
  if (auto every = r.integer("ack_every_packets", 0, 1 << 20)) {
    n.ack_every_packets = static_cast<uint32_t>(*every);
  }
  if (auto delay = r.non_negative_time("ack_delay")) n.ack_delay = *delay;
  if (auto timeout = r.integer("timeout", 0, 31)) n.timeout = static_cast<uint8_t>(*timeout);
  if (auto retry = r.integer("retry_cnt", 0, 7)) n.retry_cnt = static_cast<uint8_t>(*retry);
  parse_engine_keys(r, n);
  parse_dcqcn_keys(r, n);
  if (auto delay = r.bytes("rate_change_delay")) n.rate_change_delay = *delay;
  if (auto bank = r.integer("per_priority_limiters", 0, 64)) {
    n.per_priority_limiters = static_cast<uint32_t>(*bank);
  }
  n.transmit_timestamps = r.boolean("transmit_timestamps").value_or(false);
  if (auto dscp = r.integer("rc_ack_dscp", 0, 63)) n.rc_ack_dscp = static_cast<uint8_t>(*dscp);
  if (auto rate = r.positive_rate("qp_rate")) {
    if (n.model != NicModel::rnic) r.fail("qp_rate", "paces soft RNIC QPs: set model = \"rnic\"");
    if (n.dcqcn) r.fail("qp_rate", "is a fixed pace; DCQCN sets the QPs' rates (dcqcn = true)");
    n.qp_rate = *rate;
  }
  if (const toml::table* profiles = r.subtable("profile")) {
    n.profiles = parse_nic_profiles(TableReader(*profiles, "nic.profile", r.file()), n, topology);
  }
  return n;
}

}  // namespace bifrost::sim::scenario::detail

namespace bifrost::sim::scenario {

rnic::DcqcnConfig DcqcnSpec::reaction_point(Rate line_rate) const {
  rnic::DcqcnConfig c;
  c.line_rate = line_rate;
  c.min_rate = min_rate;
  c.g = g;
  c.alpha_update_period = alpha_update_period;
  c.rate_reduce_monitor_period = rate_reduce_period;
  c.increase_period = increase_period;
  c.increase_bytes = increase_bytes.count();
  c.fast_recovery_stages = fast_recovery_stages;
  c.additive_increase = additive_increase;
  c.hyper_increase = hyper_increase;
  return c;
}

}  // namespace bifrost::sim::scenario
