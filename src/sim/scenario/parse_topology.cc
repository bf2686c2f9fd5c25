#include <fmt/format.h>

#include <array>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 7> kKinds = {
    "dumbbell", "star", "leaf_spine", "fat_tree", "parking_lot", "two_dc", "multipath"};
// A bound on every element count, so that a typo cannot ask for a billion switches.
constexpr int64_t kMaxCount = 65536;
constexpr uint64_t kMaxHosts = uint64_t{1} << 20;
const LinkSpec kDefaultHostLink{Rate::Gbps(100), Time::us(1)};

std::vector<std::string_view> keys_for(std::string_view kind) {
  std::vector<std::string_view> keys = {"kind",      "host_rate",       "host_delay",  "host_length",
                                        "host_jitter", "host_loss", "host_drop_every", "host_aliases"};
  auto add = [&keys](std::initializer_list<std::string_view> more) {
    keys.insert(keys.end(), more.begin(), more.end());
  };
  if (kind == "dumbbell") {
    add({"hosts_per_side", "bottleneck_rate", "bottleneck_delay", "bottleneck_length",
         "bottleneck_jitter", "bottleneck_loss"});
  } else if (kind == "star") {
    add({"hosts"});
  } else if (kind == "leaf_spine") {
    add({"leaves", "spines", "hosts_per_leaf", "fabric_rate", "fabric_delay", "fabric_length",
         "fabric_jitter", "fabric_loss"});
  } else if (kind == "fat_tree") {
    add({"k", "tiers", "oversubscription", "fabric_rate", "fabric_delay", "fabric_length",
         "fabric_jitter", "fabric_loss"});
  } else if (kind == "parking_lot") {
    add({"hops", "hosts_per_switch", "chain_rate", "chain_delay", "chain_length", "chain_jitter",
         "chain_loss"});
  } else if (kind == "multipath") {
    add({"hosts_per_side", "paths", "path_rate", "path_rates", "path_delay", "path_length",
         "path_jitter", "path_loss"});
  } else {
    add({"leaves", "spines", "hosts_per_leaf", "fabric_rate", "fabric_delay", "fabric_length",
         "fabric_jitter", "fabric_loss", "dci_rate", "dci_delay", "dci_length", "dci_jitter",
         "dci_loss", "dci_links"});
  }
  return keys;
}

// <prefix>_rate and <prefix>_delay or <prefix>_length; absent values come from `fallback`, or
// are required when there is none. <prefix>_jitter and <prefix>_loss are never inherited: fibre
// jitter belongs to one class of links (long-haul ones), random loss to the links a study
// makes lossy, and the default is none.
LinkSpec link(const TableReader& r, std::string_view prefix, const LinkSpec* fallback) {
  const std::string rate_key = fmt::format("{}_rate", prefix);
  const std::string delay_key = fmt::format("{}_delay", prefix);
  const std::string length_key = fmt::format("{}_length", prefix);
  LinkSpec spec;
  if (auto rate = r.positive_rate(rate_key)) {
    spec.rate = *rate;
  } else if (fallback != nullptr) {
    spec.rate = fallback->rate;
  } else {
    r.missing(rate_key);
  }
  if (r.has(delay_key) && r.has(length_key)) {
    r.fail(length_key, fmt::format("give either {} or {}, not both", delay_key, length_key));
  }
  if (auto delay = r.time(delay_key)) {
    spec.delay = *delay;
  } else if (auto length = r.length(length_key)) {
    spec.delay = fiber_delay(*length);
  } else if (fallback != nullptr) {
    spec.delay = fallback->delay;
  } else {
    r.fail_table(fmt::format("missing required key \"{}\" (or \"{}\")", delay_key, length_key));
  }
  if (auto jitter = r.time(fmt::format("{}_jitter", prefix))) spec.jitter = *jitter;
  const std::string loss_key = fmt::format("{}_loss", prefix);
  if (auto loss = r.number(loss_key)) {
    if (*loss < 0 || *loss >= 1) {
      r.fail(loss_key, fmt::format("{} is not a probability below 1; use 0 <= loss < 1", *loss));
    }
    spec.loss = *loss;
  }
  if (prefix == "host") {
    if (auto every = r.integer("host_drop_every", 2, int64_t{1} << 40)) {
      spec.drop_every = static_cast<uint64_t>(*every);
    }
  }
  return spec;
}

uint32_t count(const TableReader& r, std::string_view key, int64_t min) {
  return static_cast<uint32_t>(r.required(r.integer(key, min, kMaxCount), key));
}

uint32_t count_or(const TableReader& r, std::string_view key, int64_t min, uint32_t fallback) {
  const auto v = r.integer(key, min, kMaxCount);
  return v ? static_cast<uint32_t>(*v) : fallback;
}

LeafSpineTopology leaf_spine(const TableReader& r, const LinkSpec& host) {
  LeafSpineTopology t;
  t.leaves = count(r, "leaves", 1);
  t.spines = count(r, "spines", 1);
  t.hosts_per_leaf = count(r, "hosts_per_leaf", 1);
  t.host = host;
  t.fabric = link(r, "fabric", &host);
  return t;
}

FatTreeTopology fat_tree(const TableReader& r, const LinkSpec& host) {
  FatTreeTopology t;
  t.k = count(r, "k", 2);
  if (t.k % 2 != 0) r.fail("k", fmt::format("{} is odd; a fat tree needs an even radix", t.k));
  if (auto tiers = r.integer("tiers", 2, 3)) t.tiers = static_cast<uint32_t>(*tiers);
  t.oversubscription = count_or(r, "oversubscription", 1, 1);
  t.host = host;
  t.fabric = link(r, "fabric", &host);
  return t;
}

// path_rates = ["1Gbps", ...]: one positive rate per path link.
std::vector<Rate> path_rates(const TableReader& r, uint32_t paths) {
  std::vector<Rate> rates;
  const toml::array* array = r.array("path_rates", "rate strings");
  if (array == nullptr) return rates;
  if (array->size() != paths) {
    r.fail("path_rates",
           fmt::format("{} rates for {} paths; give one rate per path link", array->size(), paths));
  }
  for (const toml::node& element : *array) {
    const auto* text = element.as_string();
    if (text == nullptr) {
      r.fail_at(
          element, "path_rates",
          fmt::format("expected a rate string such as \"1Gbps\", found {}", type_phrase(element)));
    }
    Rate rate;
    try {
      rate = parse_rate(text->get());
    } catch (const Error& e) {
      r.fail_at(element, "path_rates", e.what());
    }
    if (rate.bits_per_second() <= 0) r.fail_at(element, "path_rates", "must be greater than zero");
    rates.push_back(rate);
  }
  return rates;
}

MultipathTopology multipath(const TableReader& r, const LinkSpec& host) {
  MultipathTopology t;
  t.hosts_per_side = count_or(r, "hosts_per_side", 1, 1);
  t.paths = count(r, "paths", 1);
  t.host = host;
  // path_rate may be left out when path_rates names every link's rate.
  LinkSpec fallback = host;
  t.path_rates = path_rates(r, t.paths);
  if (!t.path_rates.empty()) fallback.rate = t.path_rates.front();
  t.path = link(r, "path", &fallback);
  return t;
}

Topology build(const TableReader& r, std::string_view kind, const LinkSpec& host) {
  if (kind == "dumbbell") {
    return DumbbellTopology{count(r, "hosts_per_side", 1), host, link(r, "bottleneck", &host)};
  }
  if (kind == "star") return StarTopology{count(r, "hosts", 2), host};
  if (kind == "leaf_spine") return leaf_spine(r, host);
  if (kind == "fat_tree") return fat_tree(r, host);
  if (kind == "parking_lot") {
    ParkingLotTopology t;
    t.hops = count(r, "hops", 1);
    t.hosts_per_switch = count_or(r, "hosts_per_switch", 1, 1);
    t.host = host;
    t.chain = link(r, "chain", &host);
    return t;
  }
  if (kind == "multipath") return multipath(r, host);
  TwoDcTopology t;
  t.dc = leaf_spine(r, host);
  t.dci = link(r, "dci", nullptr);
  t.dci_links = count_or(r, "dci_links", 1, 1);
  return t;
}

}  // namespace

Topology parse_topology(const TableReader& r) {
  const std::string kind = r.required(r.choice("kind", kKinds), "kind");
  const auto keys = keys_for(kind);
  r.allow_only(keys, fmt::format(" for kind \"{}\"", kind));
  const LinkSpec host = link(r, "host", &kDefaultHostLink);
  Topology topology = build(r, kind, host);
  const uint64_t hosts = host_count(topology);
  if (hosts < 2) r.fail_table(fmt::format("has {} host; a network needs at least 2", hosts));
  if (hosts > kMaxHosts) {
    r.fail_table(fmt::format("has {} hosts, more than the {} bifrost supports", hosts, kMaxHosts));
  }
  return topology;
}

uint32_t parse_host_aliases(const TableReader& r) {
  return static_cast<uint32_t>(r.integer("host_aliases", 0, kMaxHostAliases).value_or(0));
}

}  // namespace bifrost::sim::scenario::detail
