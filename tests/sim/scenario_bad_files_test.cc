#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::scenario {
namespace {

std::filesystem::path data_dir() {
  const char* root = std::getenv("BIFROST_SOURCE_DIR");
  return std::filesystem::path(root != nullptr ? root : ".") / "tests" / "sim" / "data";
}

struct BadFile {
  std::string_view file;
  std::string_view message;  // "{dir}" stands for the data folder
};

// Each bad scenario and the exact message it must produce: location, what is wrong, and what
// would be right.
constexpr BadFile kBadFiles[] = {
    {"bad_alpha.toml",
     "bad_alpha.toml:5:9: switch.alpha: 0 is out of range; valid values: greater than 0"},
    {"bad_buffer_unit.toml",
     "bad_buffer_unit.toml:5:10: switch.buffer: \"12mb\" has an unknown size unit \"mb\"; valid "
     "units: B, KB, MB, GB, KiB, MiB, GiB (units are case-sensitive: did you mean \"MB\"?)"},
    {"bad_cbfc_buffer_block.toml",
     "bad_cbfc_buffer_block.toml:10:10: switch.flow_control.host.buffer: 32 bytes cannot hold one "
     "64-byte credit block"},
    {"bad_cbfc_field_bits.toml",
     "bad_cbfc_field_bits.toml:11:14: switch.flow_control.dci.field_bits: 1 is not valid; valid "
     "values: 0 (the ideal variant, no field limit) or 2 to 32"},
    {"bad_cbfc_missing_buffer.toml",
     "bad_cbfc_missing_buffer.toml:8:1: switch.flow_control.dci: missing required key \"buffer\""},
    {"bad_cdf_and_size.toml",
     "bad_cdf_and_size.toml:7:8: workload[0].size: give either cdf or size, not both"},
    {"bad_cdf_file.toml",
     "bad_cdf_file.toml:6:7: workload[0].cdf: {dir}/bad_sizes.cdf:3: size 50 is below the previous "
     "point's 100; sizes must not decrease"},
    {"bad_cdf_name.toml",
     "bad_cdf_name.toml:6:7: workload[0].cdf: \"websarch\" is neither a built-in distribution "
     "(websearch, fb_hadoop) nor a file ({dir}/websarch does not exist)"},
    {"bad_dci_buffer_above_switch.toml",
     "bad_dci_buffer_above_switch.toml:10:10: switch.flow_control.dci.buffer: 12000000 bytes is "
     "not below the switch buffer (12000000 bytes)"},
    {"bad_dci_guard.toml",
     "bad_dci_guard.toml:10:9: switch.flow_control.dci.guard: expected a boolean (true or false), "
     "found a string"},
    {"bad_dci_literal_guard.toml",
     "bad_dci_literal_guard.toml:11:9: switch.flow_control.dci.guard: is not used with literal = "
     "true (Algorithm 1 as printed has no guard)"},
    {"bad_dci_jitter.toml",
     "bad_dci_jitter.toml:8:14: topology.dci_jitter: \"-5ns\" is not a time: expected a number "
     "followed by a unit, such as \"1us\""},
    {"bad_dci_key.toml",
     "bad_dci_key.toml:10:1: switch.flow_control.dci: unknown key \"xoff\" for kind \"dci\"; valid "
     "keys: kind, slot, leak_every, buffer, guard, literal"},
    {"bad_dci_leak_every.toml",
     "bad_dci_leak_every.toml:10:14: switch.flow_control.dci.leak_every: -1 is out of range; valid "
     "values: 0 to 65536"},
    {"bad_dci_short_link.toml",
     "bad_dci_short_link.toml:9:8: switch.flow_control.fabric.kind: the default time slot of 10us "
     "is not shorter than the one-way delay of the fabric links (1us); DCI needs T below it (on a "
     "short link use pfc)"},
    {"bad_dci_slot_delay.toml",
     "bad_dci_slot_delay.toml:10:8: switch.flow_control.dci.slot: a time slot of 60us is not "
     "shorter than the one-way delay of the dci links (50us); DCI needs T below it (on a short "
     "link "
     "use pfc)"},
    {"bad_dci_slot_latency.toml",
     "bad_dci_slot_latency.toml:12:8: switch.flow_control.dci.slot: a time slot of 2us is not "
     "longer than the switch latency (2us); the queue read at a slot must include the previous "
     "slot's arrivals"},
    {"bad_dci_slot_pause_field.toml",
     "bad_dci_slot_pause_field.toml:12:8: switch.flow_control.dci.slot: a time slot of 4000us does "
     "not fit a pause frame's 16-bit field, at most 3355.392us at 10 Gb/s"},
    {"bad_delay_and_length.toml",
     "bad_delay_and_length.toml:5:21: topology.bottleneck_length: give either bottleneck_delay or "
     "bottleneck_length, not both"},
    {"bad_delay_fraction.toml",
     "bad_delay_fraction.toml:4:14: topology.host_delay: \"1.5ps\" is not a whole number of "
     "picoseconds"},
    {"bad_delay_type.toml",
     "bad_delay_type.toml:4:14: topology.host_delay: expected a time string such as \"1us\", found "
     "an integer"},
    {"bad_destinations_only_self.toml",
     "bad_destinations_only_self.toml:10:16: workload[0].destinations: source 1 has no destination "
     "other than itself"},
    {"bad_duplicate_name.toml",
     "bad_duplicate_name.toml:10:8: workload[1].name: \"perm\" is already the name of workload[0]"},
    {"bad_ecn_missing_pmax.toml",
     "bad_ecn_missing_pmax.toml:4:1: switch.ecn: missing required key \"pmax\""},
    {"bad_ecn_order.toml",
     "bad_ecn_order.toml:5:8: switch.ecn.kmin: 400000 bytes is above kmax (100000 bytes)"},
    {"bad_ecn_pmax.toml",
     "bad_ecn_pmax.toml:7:8: switch.ecn.pmax: 1.5 is out of range; valid values: greater than 0, "
     "at most 1"},
    {"bad_fat_tree_odd_k.toml",
     "bad_fat_tree_odd_k.toml:3:5: topology.k: 5 is odd; a fat tree needs an even radix"},
    {"bad_fat_tree_tiers.toml",
     "bad_fat_tree_tiers.toml:4:9: topology.tiers: 4 is out of range; valid values: 2 to 3"},
    {"bad_fc_kind.toml",
     "bad_fc_kind.toml:9:8: switch.flow_control.dci.kind: \"credits\" is not valid; valid "
     "choices: pfc, dci, cbfc, swing, none"},
    {"bad_fc_missing_kind.toml",
     "bad_fc_missing_kind.toml:8:1: switch.flow_control.dci: missing required key \"kind\""},
    {"bad_fc_none_key.toml",
     "bad_fc_none_key.toml:10:1: switch.flow_control.dci: unknown key \"slot\" for kind \"none\"; "
     "valid keys: kind"},
    {"bad_fc_not_table.toml",
     "bad_fc_not_table.toml:9:7: switch.flow_control.dci: expected a table, found a string"},
    {"bad_fc_pfc_enabled.toml",
     "bad_fc_pfc_enabled.toml:13:1: switch.flow_control.dci: unknown key \"enabled\" for threshold "
     "\"static\"; valid keys: kind, threshold, xoff, xon, headroom"},
    {"bad_fc_unknown_class.toml",
     "bad_fc_unknown_class.toml:8:1: switch.flow_control.wan: \"wan\" is not a link class of a "
     "two_dc topology; valid classes: host, fabric, dci"},
    {"bad_file_contents.toml",
     "bad_file_contents.toml:7:8: workload[0].path: {dir}/good_flows_htsim.cm:1: \"Nodes 8\" is "
     "more than the topology's 4 hosts"},
    {"bad_file_format.toml",
     "bad_file_format.toml:6:10: workload[0].format: \"ns3\" is not valid; valid choices: htsim, "
     "hpcc, csv"},
    {"bad_file_time_unit.toml",
     "bad_file_time_unit.toml:8:13: workload[0].time_unit: applies only to format \"htsim\" (hpcc "
     "files are in seconds, csv in picoseconds)"},
    {"bad_incast_receiver_sends.toml",
     "bad_incast_receiver_sends.toml:7:11: workload[0].senders: include the receiver, host 3; a "
     "host cannot send to itself"},
    {"bad_incast_rounds_no_period.toml",
     "bad_incast_rounds_no_period.toml:9:10: workload[0].rounds: 3 rounds need a \"period\" "
     "between their starts"},
    {"bad_interval.toml",
     "bad_interval.toml:5:18: metrics.queue_interval: must be greater than zero, found \"0us\""},
    {"bad_key_for_kind.toml",
     "bad_key_for_kind.toml:4:1: topology: unknown key \"spines\" for kind \"star\"; valid keys: "
     "kind, host_rate, host_delay, host_length, host_jitter, host_loss, host_drop_every, "
     "host_aliases, hosts"},
    {"bad_kind.toml",
     "bad_kind.toml:2:8: topology.kind: \"ring\" is not valid; valid choices: dumbbell, star, "
     "leaf_spine, fat_tree, parking_lot, two_dc, multipath"},
    {"bad_length_unit.toml",
     "bad_length_unit.toml:7:14: topology.dci_length: \"10mi\" has an unknown length unit \"mi\"; "
     "valid units: m, km"},
    {"bad_load.toml",
     "bad_load.toml:7:8: workload[0].load: -0.5 is out of range; valid values: greater than 0"},
    {"bad_missing_kind.toml", "bad_missing_kind.toml:1:1: topology: missing required key \"kind\""},
    {"bad_missing_topology.toml",
     "bad_missing_topology.toml: missing required table [topology]; it needs at least \"kind\""},
    {"bad_mtu.toml",
     "bad_mtu.toml:2:7: simulation.mtu: 10000 bytes is out of range; valid values: 64 to 9216 "
     "bytes"},
    {"bad_name_chars.toml",
     "bad_name_chars.toml:6:8: workload[0].name: \"my perm\" is not a valid name; use letters, "
     "digits and _-.:/"},
    {"bad_nic_mtu.toml",
     "bad_nic_mtu.toml:7:9: nic.model: the rnic model needs a RoCE path MTU: set simulation.mtu "
     "to 256, 512, 1024, 2048 or 4096 bytes (it is 1000)"},
    {"bad_nic_recovery.toml",
     "bad_nic_recovery.toml:8:12: nic.recovery: \"sack\" is not valid; valid choices: gbn, irn, "
     "srnic, fasr"},
    {"bad_nic_rto_engine.toml",
     "bad_nic_rto_engine.toml:8:11: nic.rto_low: is a timeout of irn and fasr; recovery is "
     "\"gbn\" (set recovery = \"irn\" or \"fasr\")"},
    {"bad_nic_rto_order.toml",
     "bad_nic_rto_order.toml:10:12: nic.rto_high: rto_high (1000us) is below rto_low (6017us); "
     "the timeout with many packets in flight must not be the shorter one"},
    {"bad_percentiles.toml",
     "bad_percentiles.toml:5:24: metrics.percentiles: 95 does not increase on the previous "
     "percentile (99)"},
    {"bad_pfc_enabled_type.toml",
     "bad_pfc_enabled_type.toml:5:11: switch.pfc.enabled: expected a boolean (true or false), "
     "found a string"},
    {"bad_pfc_static_key_in_dynamic.toml",
     "bad_pfc_static_key_in_dynamic.toml:6:1: switch.pfc: unknown key \"xoff\" for threshold "
     "\"dynamic\"; valid keys: enabled, threshold, resume_offset, headroom"},
    {"bad_pfc_threshold.toml",
     "bad_pfc_threshold.toml:5:13: switch.pfc.threshold: \"adaptive\" is not valid; valid choices: "
     "dynamic, static"},
    {"bad_pfc_xon_above_xoff.toml",
     "bad_pfc_xon_above_xoff.toml:7:7: switch.pfc.xon: 400000 bytes is above xoff (300000 bytes); "
     "traffic resumes below where it paused"},
    {"bad_poisson_no_stop.toml",
     "bad_poisson_no_stop.toml:4:1: workload[0]: a poisson workload needs \"duration\" or "
     "\"flows\", or a [simulation] duration after its start"},
    {"bad_priority.toml",
     "bad_priority.toml:7:12: workload[0].priority: 8 is out of range; valid values: 0 to 7"},
    {"bad_rate_case.toml",
     "bad_rate_case.toml:4:13: topology.host_rate: \"100gbps\" has an unknown rate unit \"gbps\"; "
     "valid units: bps, Kbps, Mbps, Gbps, Tbps (units are case-sensitive: did you mean \"Gbps\"?)"},
    {"bad_rate_unit.toml",
     "bad_rate_unit.toml:4:13: topology.host_rate: \"100G\" has an unknown rate unit \"G\"; valid "
     "units: bps, Kbps, Mbps, Gbps, Tbps"},
    {"bad_rate_zero.toml",
     "bad_rate_zero.toml:4:13: topology.host_rate: must be greater than zero, found \"0Gbps\""},
    {"bad_reference.toml",
     "bad_reference.toml:8:13: workload[0].reference: \"bottleneck\" is not valid; valid choices: "
     "host"},
    {"bad_seed_negative.toml",
     "bad_seed_negative.toml:2:8: simulation.seed: -1 is out of range; valid values: 0 to "
     "9223372036854775807"},
    {"bad_seed_type.toml",
     "bad_seed_type.toml:2:8: simulation.seed: expected an integer, found a string"},
    {"bad_size_buckets.toml",
     "bad_size_buckets.toml:5:25: metrics.size_buckets: \"100kb\" has an unknown size unit \"kb\"; "
     "valid units: B, KB, MB, GB, KiB, MiB, GiB (units are case-sensitive: did you mean \"KB\"?)"},
    {"bad_sources_out_of_range.toml",
     "bad_sources_out_of_range.toml:9:18: workload[0].sources: host 4 is out of range; the "
     "topology has 4 hosts (0..3)"},
    {"bad_sources_range.toml",
     "bad_sources_range.toml:9:11: workload[0].sources: \"0-3\" is not a host selection; expected "
     "\"all\", a range such as \"0..15\" or an array of host indices"},
    {"bad_sources_repeat.toml",
     "bad_sources_repeat.toml:7:16: workload[0].hosts: host 2 appears twice"},
    {"bad_star_one_host.toml",
     "bad_star_one_host.toml:3:9: topology.hosts: 1 is out of range; valid values: 2 to 65536"},
    {"bad_stop_without_duration.toml",
     "bad_stop_without_duration.toml:2:8: simulation.stop: \"duration\" needs a \"duration\" key "
     "in [simulation]"},
    {"bad_syntax.toml",
     "bad_syntax.toml:2:7: TOML syntax error: Error while parsing key-value pair: expected value, "
     "saw '\\n'"},
    {"bad_top_level_key.toml",
     "bad_top_level_key.toml:1:1: unknown top-level key \"seed\"; valid tables: simulation, "
     "topology, routing, switch, nic, transport, workload, metrics, upgrade"},
    {"bad_topology_not_table.toml",
     "bad_topology_not_table.toml:1:12: topology: expected a table ([topology]), found a string"},
    {"bad_two_dc_no_dci_delay.toml",
     "bad_two_dc_no_dci_delay.toml:1:1: topology: missing required key \"dci_delay\" (or "
     "\"dci_length\")"},
    {"bad_unknown_key.toml",
     "bad_unknown_key.toml:3:1: simulation: unknown key \"sed\"; valid keys: seed, duration, stop, "
     "mtu, progress"},
    {"bad_unknown_table.toml",
     "bad_unknown_table.toml:1:2: unknown top-level table \"simulaton\"; valid tables: simulation, "
     "topology, routing, switch, nic, transport, workload, metrics, upgrade"},
    {"bad_workload_key_for_kind.toml",
     "bad_workload_key_for_kind.toml:9:1: workload[0]: unknown key \"load\" for kind \"incast\"; "
     "valid keys: kind, name, op, priority, senders, receiver, size, start, jitter, rounds, "
     "period"},
    {"bad_closed_loop_needs_bifrost.toml",
     "bad_closed_loop_needs_bifrost.toml:9:8: workload[0].kind: \"closed_loop\" runs over the "
     "Bifröst transport: set kind = \"bifrost-uc\" or \"bifrost-rc\" in [transport]"},
    {"bad_closed_loop_no_duration.toml",
     "bad_closed_loop_no_duration.toml:10:1: workload[0]: a closed_loop workload needs "
     "\"duration\" or a [simulation] duration after its start"},
    {"bad_closed_loop_server_is_client.toml",
     "bad_closed_loop_server_is_client.toml:12:11: workload[0].clients: include the server, host "
     "0; a host cannot send to itself"},
    {"bad_closed_loop_warmup.toml",
     "bad_closed_loop_warmup.toml:16:10: workload[0].warmup: must be shorter than duration: it is "
     "the first part of it"},
    {"bad_transport_cc.toml",
     "bad_transport_cc.toml:10:6: transport.cc: \"cubic\" is not valid; valid choices: swift, "
     "swift-md, dcqcn, vegas, timely, dctcp, none"},
    {"bad_transport_cc_both_forms.toml",
     "bad_transport_cc_both_forms.toml:11:1: TOML syntax error: Error while parsing table header: "
     "cannot redefine existing string 'transport.cc' as table"},
    {"bad_transport_cc_key_of_other_kind.toml",
     "bad_transport_cc_key_of_other_kind.toml:13:8: transport.cc.beta: belongs to kinds "
     "\"swift\", \"swift-md\", \"vegas\", \"timely\", not to kind \"dcqcn\"; valid keys for "
     "\"dcqcn\": kind, "
     "g, min_rate, alpha_update_period, rate_reduce_period, increase_period, increase_bytes, "
     "fast_recovery_stages, additive_increase, hyper_increase, cnp_interval"},
    {"bad_transport_cc_no_kind.toml",
     "bad_transport_cc_no_kind.toml:10:1: transport.cc: missing required key \"kind\""},
    {"bad_transport_cc_rogue_not_vegas.toml",
     "bad_transport_cc_rogue_not_vegas.toml:11:8: transport.cc.kind: \"swift\" is not RoGUE's: "
     "rogue-rc and rogue-uc run \"vegas\""},
    {"bad_transport_cc_rogue_vegas_twice.toml",
     "bad_transport_cc_rogue_vegas_twice.toml:10:9: transport.alpha: Vegas's keys go either in "
     "[transport] or in [transport.cc], not both"},
    {"bad_transport_cc_unknown_key.toml",
     "bad_transport_cc_unknown_key.toml:13:1: transport.cc: unknown key \"target_dealy\" for kind "
     "\"swift\"; valid keys: kind, target_delay, target_slack, ai, beta, max_mdf, min_window, "
     "initial_window, max_window, target_follows_min_rtt, loss_needs_queuing, loss_gate, "
     "random_loss_tolerance, loss_gate_memory, loss_to_minimum"},
    {"bad_transport_cc_window_order.toml",
     "bad_transport_cc_window_order.toml:13:14: transport.cc.max_window: 16384 bytes is below "
     "min_window (65536 bytes)"},
    {"bad_transport_key_for_rc.toml",
     "bad_transport_key_for_rc.toml:10:1: transport: unknown key \"cc\" for kind \"rc\" (the "
     "other keys are Bifröst's); valid keys: kind"},
    {"bad_transport_key_for_uc.toml",
     "bad_transport_key_for_uc.toml:10:1: transport: unknown key \"rc_retry_cnt\" for kind "
     "\"bifrost-uc\"; valid keys: kind, profile, cc, chunking, unit_size, max_chunk, "
     "chunk_loss_budget, send_threshold, base_rtt, min_rto, rtt_from_late_acks, "
     "failover_needs_silence, ack_timer, ack_every_wqes, "
     "ack_every_bytes, hint_when_idle, tail_probe, backup_qps, ack_path, ack_priority, "
     "completion_cost"},
    {"bad_transport_ack_priority_on_data_qp.toml",
     "bad_transport_ack_priority_on_data_qp.toml:11:16: transport.ack_priority: applies to ACKs "
     "on the UD QP; ack_path = \"data_qp\" sends them in the data's class on the data QP"},
    {"bad_transport_kind.toml",
     "bad_transport_kind.toml:9:8: transport.kind: \"bifrost\" is not valid; valid choices: rc, "
     "uc, bifrost-uc, bifrost-rc, rogue-rc, rogue-uc, virtuoso"},
    {"bad_transport_needs_rnic.toml",
     "bad_transport_needs_rnic.toml:7:8: transport.kind: \"bifrost-uc\" runs over soft RNICs: "
     "set model = \"rnic\" in [nic]"},
    {"bad_transport_send_threshold.toml",
     "bad_transport_send_threshold.toml:11:18: transport.send_threshold: send_threshold (1048576 "
     "bytes) must be below the largest message, unit_size x 2^10 = 1048576 bytes"},
    {"bad_transport_unit_size.toml",
     "bad_transport_unit_size.toml:10:13: transport.unit_size: 3000 bytes is not valid; valid "
     "values: a power of two of at least 256 bytes"},
    {"bad_workload_kind.toml",
     "bad_workload_kind.toml:5:8: workload[0].kind: \"burst\" is not valid; valid choices: "
     "poisson, incast, all_to_all, permutation, file, closed_loop, probe"},
    {"bad_workload_table.toml",
     "bad_workload_table.toml:4:1: workload: expected an array of tables ([[workload]]), found a "
     "table"},
};

std::string expected_message(std::string_view message) {
  std::string out(message);
  const std::string dir = data_dir().string();
  for (std::size_t at = out.find("{dir}"); at != std::string::npos; at = out.find("{dir}")) {
    out.replace(at, 5, dir);
  }
  return out;
}

TEST(ScenarioBadFiles, EachGivesItsExactMessage) {
  for (const BadFile& bad : kBadFiles) {
    const auto path = data_dir() / bad.file;
    const std::string text = workload::read_text_file(path);
    try {
      parse_scenario(text, bad.file, data_dir());
      ADD_FAILURE() << bad.file << " parsed without an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), expected_message(bad.message)) << bad.file;
    }
  }
}

TEST(ScenarioBadFiles, EveryBadFileIsInTheTable) {
  std::set<std::string> listed;
  for (const BadFile& bad : kBadFiles) listed.insert(std::string(bad.file));
  for (const auto& entry : std::filesystem::directory_iterator(data_dir())) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("bad_") && name.ends_with(".toml")) {
      EXPECT_TRUE(listed.contains(name)) << name << " has no expected message";
    }
  }
}

}  // namespace
}  // namespace bifrost::sim::scenario
