#include "flow_carriers.h"

#include <fmt/format.h>

#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/net/line_rate_flows.h"
#include "bifrost/rnic/nic_profile.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/sim/rnic_flows.h"

namespace bifrost::sim::detail {

namespace {

// Every flow at line rate, no ACKs, no recovery.
class LineRateCarrier final : public FlowCarrier {
 public:
  LineRateCarrier(const scenario::Scenario& sc, EventKernel& kernel, Network& network)
      : network_(network),
        ecn_capable_(sc.switches.ecn.has_value()),
        flows_(kernel, static_cast<uint32_t>(sc.simulation.mtu.count())) {}

  void add(const workload::Flow& f) override {
    net::LineRateFlowSpec spec;
    spec.src = &network_.host(f.src);
    spec.dst = &network_.host(f.dst);
    spec.bytes = f.size.count();
    spec.start = f.start;
    spec.priority = f.priority;
    spec.src_port = static_cast<uint16_t>(49152 + f.id % 16384);  // spreads flows over ECMP
    spec.ecn_capable = ecn_capable_;
    flows_.add(spec);
  }
  size_t completed() const override { return flows_.completed(); }
  std::optional<Time> finish(uint64_t id) const override {
    const net::LineRateFlowRecord& r = flows_.flow(static_cast<uint32_t>(id));
    return r.complete ? std::optional(r.last_byte_received) : std::nullopt;
  }
  uint64_t packets(uint64_t id) const override {
    return flows_.flow(static_cast<uint32_t>(id)).packets;
  }
  uint64_t delivered_bytes(uint64_t id) override {
    return flows_.flow(static_cast<uint32_t>(id)).bytes_received;
  }
  bool immediate_last() const override { return false; }
  std::string description() const override { return "line-rate sources"; }
  void add_counters(RunSummary&) const override {}

 private:
  Network& network_;
  bool ecn_capable_;
  net::LineRateFlows flows_;
};

rnic::DeviceConfig device_config(const scenario::Scenario& sc) {
  rnic::DeviceConfig d;
  d.seed = sc.simulation.seed;
  d.recovery.kind = rnic::recovery::parse_engine_kind(sc.nic.recovery);
  d.recovery.bdp_packets = sc.nic.bdp_packets;
  d.recovery.rto_low = sc.nic.rto_low;
  d.recovery.rto_high = sc.nic.rto_high;
  d.recovery.fasr_pool = {sc.nic.fasr_units, sc.nic.fasr_blocks, sc.nic.fasr_block_bits};
  d.recovery.lean_sr_header = sc.nic.fasr_lean_header;
  d.data_path.ack_every_packets = sc.nic.ack_every_packets;
  d.data_path.ack_delay = sc.nic.ack_delay;
  d.rate_limiter.change_delay = sc.nic.rate_change_delay;
  d.per_priority_limiters = sc.nic.per_priority_limiters;
  d.complete_sends_at_transmit = sc.nic.transmit_timestamps;
  if (sc.nic.rc_ack_dscp)
    d.data_path.ack_traffic_class = static_cast<uint8_t>(*sc.nic.rc_ack_dscp << 2);
  d.data_path.ecn_capable = sc.switches.ecn.has_value();
  if (sc.nic.dcqcn) {
    const scenario::DcqcnSpec& s = sc.nic.dcqcn_spec;
    d.dcqcn = s.reaction_point(scenario::link_class_rate(sc.topology, "host"));
    d.min_time_between_cnps = s.cnp_interval;
    d.cnp_scope = s.cnp_interval_per_port ? rnic::CnpScope::per_port : rnic::CnpScope::per_qp;
  }
  return d;
}

rnic::NicProfile nic_profile(const scenario::NicProfileSpec& spec) {
  rnic::NicProfile p = rnic::find_nic_profile(spec.name);
  if (spec.dcqcn_increase_period) p.dcqcn_increase_period = *spec.dcqcn_increase_period;
  if (spec.dcqcn_increase_bytes) p.dcqcn_increase_bytes = spec.dcqcn_increase_bytes->count();
  p.lossy.tx_window = spec.tx_window;
  if (spec.tx_window_packets) p.lossy.tx_window_packets = *spec.tx_window_packets;
  p.lossy.slow_restart = spec.slow_restart;
  p.lossy.adaptive_retransmission = spec.adaptive_retransmission;
  if (spec.adaptive_rto) p.lossy.adaptive_rto = *spec.adaptive_rto;
  p.ack_delay = spec.ack_delay;
  if (spec.rate_change_delay) p.rate_change_delay = *spec.rate_change_delay;
  if (spec.per_priority_limiters) p.per_priority_limiters = *spec.per_priority_limiters;
  if (spec.dcqcn_reaction_groups) p.dcqcn_reaction_groups = *spec.dcqcn_reaction_groups;
  return p;
}

// The hosts a [nic.profile] names get the template with their profile applied.
DeviceByHost profiled_devices(const scenario::Scenario& sc, const rnic::DeviceConfig& common) {
  DeviceByHost out;
  for (const scenario::NicProfileSpec& spec : sc.nic.profiles) {
    rnic::DeviceConfig d = common;
    try {
      nic_profile(spec).apply(d);
    } catch (const Error& e) {
      throw Error("{}: {}", spec.where, e.what());
    }
    for (const uint32_t h : spec.hosts) out.emplace(h, d);
  }
  return out;
}

std::string nic_text(const scenario::Scenario& sc) {
  std::string profiles;
  for (const scenario::NicProfileSpec& spec : sc.nic.profiles) {
    profiles += fmt::format(", {} on {} hosts", spec.name, spec.hosts.size());
    if (rnic::find_nic_profile(spec.name).needs_lossless && !sc.switches.pfc.enabled) {
      profiles +=
          fmt::format(" (warning: {} needs a lossless fabric and [switch.pfc] is off)", spec.name);
    }
  }
  if (sc.transport.kind == scenario::TransportKind::uc) {
    return fmt::format("soft RNICs (UC WRITEs of {} B, no recovery{}{})",
                       sc.transport.uc_message.count(), sc.nic.dcqcn ? ", DCQCN" : "", profiles);
  }
  return fmt::format("soft RNICs ({} recovery{}{})", sc.nic.recovery, sc.nic.dcqcn ? ", DCQCN" : "",
                     profiles);
}

// The soft-RNIC carriers: RnicFlows and TransportFlows share RnicFlowRecord and NIC counters.
template <typename Flows>
class RdmaCarrier : public FlowCarrier {
 public:
  template <typename Config>
  RdmaCarrier(std::string text, EventKernel& kernel, Network& network, const Config& config)
      : text_(std::move(text)), flows_(kernel, network, config) {}

  void add(const workload::Flow& f) override { flows_.add(f); }
  size_t completed() const override { return flows_.completed(); }
  std::optional<Time> finish(uint64_t id) const override {
    const RnicFlowRecord& r = flows_.records()[id];
    return r.complete ? std::optional(r.finish) : std::nullopt;
  }
  uint64_t packets(uint64_t id) const override { return flows_.records()[id].packets; }
  uint64_t delivered_bytes(uint64_t id) override { return flows_.delivered_bytes(id); }
  bool immediate_last() const override { return true; }
  std::optional<QpRateSample> sender_rate(uint64_t id) const override {
    if constexpr (requires { flows_.sender_rate(id); }) {
      return flows_.sender_rate(id);
    } else {
      return std::nullopt;
    }
  }
  std::string description() const override { return text_; }
  rnic::Device* device(uint32_t host) override { return &flows_.device(host); }
  void add_counters(RunSummary& summary) const override {
    const rnic::DataPathCounters c = flows_.counters();
    summary.retransmitted = c.tx_retransmitted;
    summary.timeouts = c.timeouts;
    summary.metrics.nic = metrics::NicTotals{.retransmitted = c.tx_retransmitted,
                                             .timeouts = c.timeouts,
                                             .naks_sent = c.naks_sent,
                                             .sacks_sent = c.sacks_sent,
                                             .delayed_acks = c.delayed_acks,
                                             .cnps_sent = c.cnps_sent,
                                             .uc_out_of_sequence = c.rx_uc_out_of_sequence};
  }

 protected:
  std::string text_;
  Flows flows_;
};

RnicFlowsConfig rnic_flows_config(const scenario::Scenario& sc) {
  RnicFlowsConfig c;
  c.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
  c.timeout = sc.nic.timeout;
  c.retry_cnt = sc.nic.retry_cnt;
  if (sc.transport.kind == scenario::TransportKind::uc) {
    c.qp_type = rnic::QpType::uc;
    c.uc_message = sc.transport.uc_message.count();
  }
  c.device = device_config(sc);
  c.device_by_host = profiled_devices(sc, c.device);
  c.qp_rate = sc.nic.qp_rate;
  return c;
}

// One RC (or, [transport] kind = "uc", UC) QP pair per flow; also reports the NICs' FaSR pools.
class RnicCarrier final : public RdmaCarrier<RnicFlows> {
 public:
  RnicCarrier(const scenario::Scenario& sc, EventKernel& kernel, Network& network)
      : RdmaCarrier(nic_text(sc), kernel, network, rnic_flows_config(sc)) {}

  void add_counters(RunSummary& summary) const override {
    RdmaCarrier::add_counters(summary);
    summary.metrics.fasr_pool = flows_.fasr_pools();
  }
};

transport::rogue::RogueConfig rogue_config(const scenario::Scenario& sc) {
  const scenario::RogueSpec& g = sc.transport.rogue;
  transport::rogue::RogueConfig c;
  c.qp_type = sc.transport.kind == scenario::TransportKind::rogue_rc ? transport::rogue::QpType::rc
                                                                     : transport::rogue::QpType::uc;
  c.line_rate = scenario::link_class_rate(sc.topology, "host");
  c.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
  if (g.segment) c.segment_bytes = g.segment->count();
  if (g.batch) c.batch_bytes = g.batch->count();
  // Packet size, line rate and step are RoGUE's (RogueConfig::vegas_params).
  c.vegas = sc.transport.cc.vegas.params;
  if (g.rate_step) c.rate_step = *g.rate_step;
  c.holdoff_bytes = g.holdoff.count();
  c.uc_sample_timeout = g.uc_sample_timeout;
  c.rc_timeout = g.rc_timeout;
  c.shadow_qp = g.shadow_qp;
  c.pace = g.pace;
  c.rc_idle_start_floor = g.rc_idle_start_floor;
  c.rc_anchor_every = g.rc_anchor_every;
  c.sample_applied_rate = g.sample_applied_rate;
  c.rtt_noise = g.rtt_noise;
  if (g.signal_cost) c.signal_cost = *g.signal_cost;
  if (g.clock_read_cost) c.clock_read_cost = *g.clock_read_cost;
  return c;
}

transport::virtuoso::VirtuosoConfig virtuoso_config(const scenario::Scenario& sc) {
  const scenario::VirtuosoSpec& v = sc.transport.virtuoso;
  transport::virtuoso::VirtuosoConfig c;
  c.paths = v.paths;
  c.block = v.block.count();
  c.small_send = v.small_send.count();
  c.probe = v.probe;
  c.probe_bytes = v.probe_size.count();
  c.pace_paths = v.pace_paths;
  c.max_send_wr = v.max_send_wr;
  c.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
  c.rc_timeout = v.rc_timeout;
  c.rc_retry_cnt = v.rc_retry_cnt;
  c.chunk_search.enabled = v.chunk_search;
  c.chunk_search.initial = v.chunk_initial.count();
  c.chunk_search.linear_step = v.chunk_step.count();
  return c;
}

bool is_rogue(scenario::TransportKind kind) {
  return kind == scenario::TransportKind::rogue_rc || kind == scenario::TransportKind::rogue_uc;
}

std::string transport_text(const scenario::Scenario& sc) {
  const scenario::TransportSpec& t = sc.transport;
  if (is_rogue(t.kind)) {
    const transport::rogue::RogueConfig c = rogue_config(sc);
    return fmt::format("RoGUE {} (Vegas, segment {} B, batch {} B) over {}",
                       t.kind == scenario::TransportKind::rogue_rc ? "RC" : "UC", c.segment(),
                       c.batch(), nic_text(sc));
  }
  if (t.kind == scenario::TransportKind::virtuoso) {
    return fmt::format("Virtuoso over {} paths (block {} B, probe {}, chunk search {}) over {}",
                       t.virtuoso.paths, t.virtuoso.block.count(), t.virtuoso.probe ? "on" : "off",
                       t.virtuoso.chunk_search ? "on" : "off", nic_text(sc));
  }
  return fmt::format("Bifröst {} (cc {}, unit {} B) over {}",
                     t.kind == scenario::TransportKind::bifrost_uc ? "UC" : "RC",
                     transport::to_string(t.cc.kind), t.unit_size.count(), nic_text(sc));
}

// Bifröst or RoGUE connections between soft RNICs; closed loops run over it.
class TransportCarrier final : public RdmaCarrier<TransportFlows> {
 public:
  TransportCarrier(const scenario::Scenario& sc, EventKernel& kernel, Network& network)
      : RdmaCarrier(transport_text(sc), kernel, network, transport_flows_config(sc)) {}

  void add_counters(RunSummary& summary) const override {
    RdmaCarrier::add_counters(summary);
    summary.transport = flows_.totals();
    summary.metrics.transport_rtt = flows_.rtt_by_direction();
    summary.metrics.cc_trace = flows_.cc_trace();
    summary.transport_unidentified = flows_.unidentified_deliveries();
  }
  TransportFlows* transport() override { return &flows_; }
};

}  // namespace

TransportFlowsConfig transport_flows_config(const scenario::Scenario& sc) {
  const scenario::TransportSpec& t = sc.transport;
  TransportFlowsConfig c;
  c.device = device_config(sc);
  c.device_by_host = profiled_devices(sc, c.device);
  c.endpoint.seed = sc.simulation.seed;
  if (is_rogue(t.kind)) {
    c.transport.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
    c.rogue = rogue_config(sc);
    c.cc_trace = sc.metrics.cc_trace;
    if (sc.transport.rogue.verb) c.rogue_verb_bytes = sc.transport.rogue.verb->count();
    return c;
  }
  if (t.kind == scenario::TransportKind::virtuoso) {
    c.transport.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
    c.virtuoso = virtuoso_config(sc);
    return c;
  }
  transport::TransportConfig& tc = c.transport;
  // The paper's profile starts from paper() itself, so that what no scenario key holds is the
  // paper's too; the spec's fields (the profile's values, or the keys given) go over it.
  if (t.paper_profile) tc = transport::TransportConfig::paper();
  tc.reliability = t.kind == scenario::TransportKind::bifrost_rc
                       ? transport::Reliability::hardware_rc
                       : transport::Reliability::software_uc;
  tc.cc = t.cc;
  tc.chunking = t.chunking;
  tc.unit_size = static_cast<uint32_t>(t.unit_size.count());
  tc.max_chunk = static_cast<uint32_t>(t.max_chunk.count());
  tc.chunk_loss_budget = t.chunk_loss_budget;
  tc.send_threshold = static_cast<uint32_t>(t.send_threshold.count());
  tc.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
  tc.base_rtt = t.base_rtt;
  tc.line_rate_bps =
      static_cast<uint64_t>(scenario::link_class_rate(sc.topology, "host").bits_per_second());
  tc.min_rto = t.min_rto;
  tc.rtt_from_late_acks = t.rtt_from_late_acks;
  tc.failover_needs_silence = t.failover_needs_silence;
  tc.ack_timer = t.ack_timer;
  tc.ack_every_wqes = t.ack_every_wqes;
  tc.ack_every_bytes = static_cast<uint32_t>(t.ack_every_bytes.count());
  tc.hint_when_idle = t.hint_when_idle;
  tc.tail_probe = t.tail_probe;
  tc.ack_path = t.acks_on_data_qp ? transport::AckPath::data_qp : transport::AckPath::ud;
  c.acks_in_data_class = !t.ack_priority;
  c.endpoint.completion_cost = t.completion_cost;
  tc.backup_qps = t.backup_qps;
  tc.rc_retry_cnt = t.rc_retry_cnt;
  tc.rc_timeout = t.rc_timeout;
  if (sc.upgrade) {
    // Where a non-stop upgrade starts: the same connections run by the NIC alone, its
    // go-back-N for loss and its DCQCN (if on) for congestion, one WRITE per message.
    transport::TransportConfig plain = tc;
    plain.reliability = transport::Reliability::hardware_rc;
    plain.cc = transport::CcConfig{.kind = transport::CcKind::none};
    plain.chunking = false;
    c.plain_rc = plain;
  }
  return c;
}

std::unique_ptr<FlowCarrier> make_flow_carrier(const scenario::Scenario& sc, EventKernel& kernel,
                                               Network& network) {
  const bool plain = sc.transport.kind == scenario::TransportKind::rc ||
                     sc.transport.kind == scenario::TransportKind::uc;  // uc needs an rnic
  if (!plain) return std::make_unique<TransportCarrier>(sc, kernel, network);
  if (sc.nic.model == scenario::NicModel::rnic) {
    return std::make_unique<RnicCarrier>(sc, kernel, network);
  }
  return std::make_unique<LineRateCarrier>(sc, kernel, network);
}

}  // namespace bifrost::sim::detail
