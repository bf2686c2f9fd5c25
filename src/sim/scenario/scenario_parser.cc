#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <unordered_map>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/workload/text_file.h"
#include "parsers.h"

namespace bifrost::sim::scenario {

namespace {

using detail::TableReader;

constexpr std::array<std::string_view, 9> kTables = {"simulation", "topology", "routing",
                                                     "switch",     "nic",      "transport",
                                                     "workload",   "metrics",  "upgrade"};

toml::table parse_toml(std::string_view text, std::string_view name) {
  try {
    return toml::parse(text, std::string(name));
  } catch (const toml::parse_error& e) {
    throw Error("{}: TOML syntax error: {}", detail::location(name, e.source()), e.description());
  }
}

// The root's entries must be known tables; a bare key or a misspelt table name stops here.
void check_root(const toml::table& root, std::string_view name) {
  for (auto&& [key, value] : root) {
    const auto known = std::find(kTables.begin(), kTables.end(), key.str()) != kTables.end();
    if (!known) {
      throw Error("{}: unknown top-level {} \"{}\"; valid tables: {}",
                  detail::location(name, key.source()), value.is_table() ? "table" : "key",
                  key.str(), detail::join(kTables));
    }
    if (key.str() == "workload") {
      const auto* array = value.as_array();
      if (array == nullptr || !array->is_array_of_tables()) {
        throw Error("{}: workload: expected an array of tables ([[workload]]), found {}",
                    detail::location(name, value.source()), detail::type_phrase(value));
      }
    } else if (!value.is_table()) {
      throw Error("{}: {}: expected a table ([{}]), found {}",
                  detail::location(name, value.source()), key.str(), key.str(),
                  detail::type_phrase(value));
    }
  }
}

const toml::table* table(const toml::table& root, std::string_view key) {
  const toml::node* node = root.get(key);
  return node == nullptr ? nullptr : node->as_table();
}

// An empty table stands in for an absent optional section, so defaults flow through one path.
const toml::table& table_or_empty(const toml::table& root, std::string_view key) {
  static const toml::table empty;
  const toml::table* t = table(root, key);
  return t != nullptr ? *t : empty;
}

std::vector<WorkloadConfig> workloads(const toml::table& root, std::string_view name,
                                      const Scenario& s, const std::filesystem::path& base_dir) {
  std::vector<WorkloadConfig> out;
  const toml::node* node = root.get("workload");
  if (node == nullptr) return out;
  std::unordered_map<std::string, std::size_t> names;
  const toml::array& array = *node->as_array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    const TableReader r(*array[i].as_table(), fmt::format("workload[{}]", i), name);
    WorkloadConfig w = detail::parse_workload(r, i, s.topology, s.simulation, base_dir);
    if (std::holds_alternative<ClosedLoopWorkload>(w.spec) &&
        (s.transport.kind == TransportKind::rc || s.transport.kind == TransportKind::uc)) {
      r.fail("kind",
             "\"closed_loop\" runs over the Bifröst transport: set kind = \"bifrost-uc\" or "
             "\"bifrost-rc\" in [transport]");
    }
    if (std::holds_alternative<ProbeWorkload>(w.spec) && s.nic.model != NicModel::rnic &&
        (s.transport.kind == TransportKind::rc || s.transport.kind == TransportKind::uc)) {
      r.fail("kind",
             "\"probe\" posts RDMA WRITEs on the hosts' soft RNICs: set [nic] model = \"rnic\" "
             "or a [transport] kind");
    }
    if (w.op == workload::FlowOp::read && s.transport.kind != TransportKind::rogue_rc &&
        s.transport.kind != TransportKind::virtuoso) {
      r.fail("op",
             "\"read\" flows are RDMA READs of RoGUE over RC, which clocks them by a READ window "
             "of their own, or MP READs of Virtuoso: set kind = \"rogue-rc\" or \"virtuoso\" "
             "in [transport]");
    }
    const auto [it, fresh] = names.emplace(w.name, i);
    if (!fresh) {
      const toml::node* at = r.find("name");
      throw Error("{}: workload[{}].name: \"{}\" is already the name of workload[{}]",
                  detail::location(name, at != nullptr ? at->source() : r.table().source()), i,
                  w.name, it->second);
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace

Scenario parse_scenario(std::string_view text, std::string_view name,
                        const std::filesystem::path& base_dir) {
  const toml::table root = parse_toml(text, name);
  check_root(root, name);
  Scenario s;
  s.source = std::string(name);
  s.simulation =
      detail::parse_simulation(TableReader(table_or_empty(root, "simulation"), "simulation", name));
  const toml::table* topology = table(root, "topology");
  if (topology == nullptr) {
    throw Error("{}: missing required table [topology]; it needs at least \"kind\"", name);
  }
  s.topology = detail::parse_topology(TableReader(*topology, "topology", name));
  s.addressing.host_aliases = detail::parse_host_aliases(TableReader(*topology, "topology", name));
  s.addressing.routing = detail::parse_routing(
      TableReader(table_or_empty(root, "routing"), "routing", name), s.addressing.host_aliases);
  s.switches = detail::parse_switch(TableReader(table_or_empty(root, "switch"), "switch", name),
                                    s.simulation.mtu, s.topology);
  s.nic = detail::parse_nic(TableReader(table_or_empty(root, "nic"), "nic", name), s.simulation.mtu,
                            s.topology);
  const TableReader transport(table_or_empty(root, "transport"), "transport", name);
  s.transport = detail::parse_transport(transport, s.nic);
  if (s.nic.qp_rate && s.transport.kind != TransportKind::rc &&
      s.transport.kind != TransportKind::uc) {
    TableReader(table_or_empty(root, "nic"), "nic", name)
        .fail("qp_rate", "paces plain RC or UC flows; the [transport] paces its own QPs");
  }
  if (s.transport.kind == TransportKind::virtuoso) {
    detail::check_virtuoso_addressing(transport, s.transport.virtuoso, s.addressing);
  }
  s.workloads = workloads(root, name, s, base_dir);
  if (const toml::table* upgrade = table(root, "upgrade")) {
    s.upgrade = detail::parse_upgrade(TableReader(*upgrade, "upgrade", name), s);
  }
  const TableReader metrics(table_or_empty(root, "metrics"), "metrics", name);
  s.metrics = detail::parse_metrics(metrics, s.topology);
  const bool rogue =
      s.transport.kind == TransportKind::rogue_rc || s.transport.kind == TransportKind::rogue_uc;
  if (s.metrics.cc_trace && !rogue) {
    metrics.fail("cc_trace",
                 "traces RoGUE's congestion control: set kind = \"rogue-rc\" or \"rogue-uc\" in "
                 "[transport]");
  }
  return s;
}

Scenario load_scenario(const std::filesystem::path& file) {
  return parse_scenario(workload::read_text_file(file), file.string(), file.parent_path());
}

Bytes pfc_headroom(const LinkSpec& link, Bytes mtu) {
  return bytes_in(link.delay * 2, link.rate) + mtu * 2;
}

}  // namespace bifrost::sim::scenario
