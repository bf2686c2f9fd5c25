// [nic.profile.<name>]: which hosts have a ConnectX-3 Pro-, ConnectX-4- or ConnectX-5-like NIC
// (rnic/nic_profile.h), and overrides of the profile's named differences for sweeps.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>

#include "host_sets.h"
#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 3> kProfiles = {"cx3pro", "cx4", "cx5"};
constexpr std::array<std::string_view, 12> kKeys = {"hosts",
                                                    "dcqcn_increase_period",
                                                    "dcqcn_increase_bytes",
                                                    "tx_window",
                                                    "tx_window_packets",
                                                    "slow_restart",
                                                    "adaptive_retransmission",
                                                    "adaptive_rto",
                                                    "ack_delay",
                                                    "rate_change_delay",
                                                    "per_priority_limiters",
                                                    "dcqcn_reaction_groups"};

NicProfileSpec parse_profile(const TableReader& r, std::string_view name, const NicConfig& nic,
                             uint64_t host_count) {
  r.allow_only(kKeys);
  NicProfileSpec p;
  p.name = std::string(name);
  p.hosts = r.required(host_set(r, "hosts", host_count), "hosts");
  if ((r.has("dcqcn_increase_period") || r.has("dcqcn_increase_bytes")) && !nic.dcqcn) {
    r.fail(r.has("dcqcn_increase_period") ? "dcqcn_increase_period" : "dcqcn_increase_bytes",
           "is a DCQCN constant; DCQCN is off (set nic.dcqcn = true)");
  }
  p.dcqcn_increase_period = r.positive_time("dcqcn_increase_period");
  p.dcqcn_increase_bytes = r.positive_bytes("dcqcn_increase_bytes");
  p.tx_window = r.boolean("tx_window").value_or(false);
  if (auto packets = r.integer("tx_window_packets", 1, 1 << 22)) {
    if (!p.tx_window) r.fail("tx_window_packets", "sizes the window; set tx_window = true");
    p.tx_window_packets = static_cast<uint32_t>(*packets);
  }
  p.slow_restart = r.boolean("slow_restart").value_or(false);
  if (p.slow_restart && !nic.dcqcn) {
    r.fail("slow_restart", "cuts the QP's DCQCN rate; DCQCN is off (set nic.dcqcn = true)");
  }
  p.adaptive_retransmission = r.boolean("adaptive_retransmission").value_or(false);
  p.adaptive_rto = r.positive_time("adaptive_rto");
  if (p.adaptive_rto && !p.adaptive_retransmission) {
    r.fail("adaptive_rto",
           "is the first timeout of adaptive retransmission; set "
           "adaptive_retransmission = true");
  }
  if (p.adaptive_rto && *p.adaptive_rto > Time::s(1)) {
    r.fail("adaptive_rto", "must be at most 1 s");
  }
  p.ack_delay = r.non_negative_time("ack_delay");
  p.rate_change_delay = r.bytes("rate_change_delay");
  if (auto bank = r.integer("per_priority_limiters", 1, 64)) {
    p.per_priority_limiters = static_cast<uint32_t>(*bank);
  }
  if (auto groups = r.integer("dcqcn_reaction_groups", 0, 1 << 16)) {
    p.dcqcn_reaction_groups = static_cast<uint32_t>(*groups);
  }
  return p;
}

}  // namespace

std::vector<NicProfileSpec> parse_nic_profiles(const TableReader& r, const NicConfig& nic,
                                               const Topology& topology) {
  if (nic.model != NicModel::rnic) {
    r.fail_table("NIC profiles describe soft RNICs; set nic.model = \"rnic\"");
  }
  const uint64_t host_count = scenario::host_count(topology);
  std::vector<NicProfileSpec> out;
  std::unordered_map<uint32_t, std::string> owner;
  for (auto&& [key, value] : r.table()) {
    const std::string_view name = key.str();
    if (std::find(kProfiles.begin(), kProfiles.end(), name) == kProfiles.end()) {
      r.fail(name,
             fmt::format("\"{}\" is not a NIC profile; valid profiles: {}", name, join(kProfiles)));
    }
    const toml::table* table = r.subtable(name);
    const TableReader p(*table, fmt::format("{}.{}", r.path(), name), r.file());
    NicProfileSpec spec = parse_profile(p, name, nic, host_count);
    spec.where = fmt::format("{}: {}", location(r.file(), table->source()), p.path());
    if (name == "cx4" && (spec.tx_window || spec.slow_restart || spec.adaptive_retransmission)) {
      p.fail_table(
          "the cx4 profile has no lossy-RoCE features (tx_window, slow_restart, "
          "adaptive_retransmission); they are cx5's");
    }
    for (const uint32_t h : spec.hosts) {
      if (auto [it, fresh] = owner.emplace(h, spec.name); !fresh) {
        p.fail("hosts", fmt::format("host {} already has profile {}", h, it->second));
      }
    }
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace bifrost::sim::scenario::detail
