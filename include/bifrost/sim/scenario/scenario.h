#pragma once
// A scenario: everything `bifrost-sim run scenario.toml` needs to know, as plain structs. The
// TOML schema is documented key by key in docs/scenarios.md; parse_scenario turns a file into
// these structs, and reports any unknown key, wrong type or impossible value with the file,
// line and column and the valid choices.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"
#include "bifrost/sim/scenario/topology.h"
#include "bifrost/sim/workload/flow.h"
#include "bifrost/sim/workload/flow_files.h"
#include "bifrost/sim/workload/flow_size_cdf.h"
#include "bifrost/transport/cc/cc_config.h"  // header only: this library does not link the transport

namespace bifrost::sim::scenario {

// When the run ends: when every flow has finished (bounded by `duration` if set), or at
// `duration` whatever is still running.
enum class StopRule { flows_done, duration };

struct SimulationConfig {
  uint64_t seed = 1;
  std::optional<Time> duration;
  StopRule stop = StopRule::flows_done;
  Bytes mtu{1000};               // payload bytes per packet
  std::optional<Time> progress;  // print progress every this much simulated time
};

struct EcnConfig {
  Bytes kmin;  // queue length where marking starts
  Bytes kmax;  // queue length where the marking probability reaches pmax
  double pmax = 0;
  bool operator==(const EcnConfig&) const = default;
};

enum class PfcThreshold {
  static_bytes,  // pause above xoff bytes queued at an ingress, resume below xon
  dynamic,       // pause above alpha x free shared buffer, resume resume_offset below that
};

struct PfcConfig {
  bool enabled = false;
  PfcThreshold threshold = PfcThreshold::dynamic;
  Bytes xoff;           // static only
  Bytes xon;            // static only
  Bytes resume_offset;  // dynamic only
  // Per ingress port and priority; nullopt: size it from the link (pfc_headroom below).
  std::optional<Bytes> headroom;
};

// No flow control: frames arriving over these links are lossy (the shared buffer's dynamic
// threshold may drop them).
struct NoFlowControl {};

// Bifrost DCI on the downstream switch port (net::DciConfig); the upstream obeys as for PFC.
struct DciFlowControl {
  Time slot = Time::us(10);  // T
  uint32_t leak_every = 1;   // k; 0: no leak handling
  // Per port and lossless priority, H + k x S; nullopt: the minimum net::dci_min_buffer.
  std::optional<Bytes> buffer;
  bool guard = true;     // full pauses last T + guard (net::DciConfig::guard_full_pauses)
  bool literal = false;  // Algorithm 1 as printed (net::DciConfig::literal)
};

// InfiniBand credits (net::CbfcConfig): the downstream advertises, the upstream egress obeys.
struct CbfcFlowControl {
  Bytes buffer;  // per port and lossless priority
  Time update_period = Time::us(1);
  uint32_t field_bits = 12;  // 0: the ideal variant without the field limit
};

// SWING (net::SwingConfig, docs/net.md "SWING"): every link of the class gets a relay node at
// each end, joined to its switch by a short link of the class's rate; the relays pass the
// switches' pauses on over the long link and buffer what they cannot stop.
struct SwingFlowControl {
  // net::SwingTrigger: "relay" (ours: pass the switch's pauses on) or "threshold" (the paper's:
  // the relay's own XOFF / XON on its long-link queue).
  enum class Trigger : uint8_t { kRelay, kThreshold };
  Trigger trigger = Trigger::kRelay;
  // Per relay and lossless priority on the long-link side; nullopt: net::swing_relay_buffer
  // (with "threshold": xoff + net::swing_relay_buffer).
  std::optional<Bytes> buffer;
  Bytes xoff = Bytes(198'000);  // the relays' and the switches' PFC on the short links
  Bytes xon = Bytes(198'000);
  Time relay_delay = Time::us(1);  // one way, switch to relay
};

// The flow control of every link of one class, overriding [switch.pfc] on both of its ends.
struct LinkClassFlowControl {
  std::string link_class;
  // "file:line:column: switch.flow_control.<class>": prefixes the errors that only building
  // the network can find (a DCI buffer below Theorem 1's bound, a switch buffer too small).
  std::string where;
  std::variant<NoFlowControl, PfcConfig, DciFlowControl, CbfcFlowControl, SwingFlowControl> kind;
};

// [switch.border], two_dc only: the border (DCI) switches' buffer as a static partition with
// no shared pool (net::BufferPartition::kStatic; the Bifrost DCI paper, section VI-B: "Shared
// buffer is disabled in DCI switch"). Each lossless ingress owns its flow control's xoff plus
// headroom (or H + k S); lossy frames get queue_buffer per egress queue (port, priority).
struct BorderBufferConfig {
  Bytes queue_buffer;
};

struct SwitchConfig {
  Bytes buffer = Bytes(12'000'000);  // shared buffer per switch
  double alpha = 1.0;                // dynamic-threshold factor of the shared buffer
  Time latency;                      // processing latency of every switch, per packet
  std::optional<EcnConfig> ecn;      // nullopt: no ECN marking
  PfcConfig pfc;                     // every link class not in flow_control
  std::vector<LinkClassFlowControl> flow_control;
  std::optional<BorderBufferConfig> border;  // nullopt: the border switches are like the rest
};

// The headroom that absorbs what is in flight after a pause is sent: a round trip of the link
// at line rate plus one MTU-sized packet in serialization at each end,
// 2 * rate * delay + 2 * mtu bytes.
Bytes pfc_headroom(const LinkSpec& link, Bytes mtu);

struct PoissonWorkload {
  std::shared_ptr<const workload::FlowSizeCdf> sizes;
  std::string sizes_name;  // "websearch", the CDF path as written, or "constant <n> bytes"
  double load = 0;
  std::string reference = "host";  // "host" (each source's own link) or a link class
  std::vector<uint32_t> sources;
  std::vector<uint32_t> destinations;
  Time start;
  std::optional<Time> duration;
  std::optional<uint64_t> max_flows;
};

struct IncastWorkload {
  std::vector<uint32_t> senders;
  uint32_t receiver = 0;
  Bytes size;
  Time start;
  Time jitter;
  uint32_t rounds = 1;
  Time period;
};

struct AllToAllWorkload {
  std::vector<uint32_t> hosts;
  Bytes size;
  Time start;
  Time jitter;
};

struct PermutationWorkload {
  std::vector<uint32_t> hosts;
  Bytes size;
  Time start;
  Time jitter;
};

struct FileWorkload {
  workload::FlowFileFormat format = workload::FlowFileFormat::csv;
  std::filesystem::path path;  // resolved against the scenario file's folder
  workload::HtsimTimeUnit time_unit = workload::HtsimTimeUnit::picoseconds;
  std::vector<workload::Flow> flows;  // read while parsing, so file errors surface early
};

// A closed loop of requests into one server (an RPC incast): each client runs `threads`
// threads, each with its own Bifröst connection to the server, and each thread keeps `depth`
// requests of `size` bytes outstanding, issuing the next as soon as one completes, from `start`
// until start + duration. Its flows are made while the run goes (sim::ClosedLoop), not up front.
struct ClosedLoopWorkload {
  std::vector<uint32_t> clients;
  uint32_t server = 0;
  uint32_t threads = 1;
  uint32_t depth = 1;
  Bytes size;
  Time start;
  Time duration;
  Time warmup;  // goodput counts requests completed from start + warmup on
  // Threads start spread over [start, start + start_spread) instead of all at `start`
  // (sim::ClosedLoop::thread_start); zero: all together.
  Time start_spread;
};

// A latency probe (RoGUE's Fig. 11): from `start` until `stop`, host `src` posts a signaled
// zero-byte RDMA WRITE to `dst` every `interval` on an RC QP pair of its own (no transport, no
// congestion control: the NIC alone), and records each one's round trip, post to completion
// (sim::Probe). It makes no flows; its RTTs go to probe_rtt.csv and summary.json.
struct ProbeWorkload {
  uint32_t src = 0;
  uint32_t dst = 0;
  Time interval;
  Time start;
  Time stop;  // no probe is posted at or after it
};

struct WorkloadConfig {
  std::string name;  // unique; tags the flows and names the random stream
  uint8_t priority = 0;
  workload::FlowOp op = workload::FlowOp::write;  // every flow of the workload
  std::variant<PoissonWorkload, IncastWorkload, AllToAllWorkload, PermutationWorkload, FileWorkload,
               ClosedLoopWorkload, ProbeWorkload>
      spec;
};

struct MetricsConfig {
  std::optional<Time> throughput_interval;  // nullopt: no throughput samples
  // Link classes ("dci", "fabric", ...) whose links are sampled; empty: every link.
  std::vector<std::string> throughput_links;
  std::optional<Time> queue_interval;  // nullopt: no queue samples
  // Upper edges of the flow-size buckets for FCT slowdown: [0, e1), [e1, e2), ..., [en, inf).
  std::vector<Bytes> size_buckets = {Bytes(10'000), Bytes(100'000), Bytes(1'000'000)};
  std::vector<double> percentiles = {50, 95, 99, 99.9};
  bool flow_records = true;  // write one row per flow to flows.csv
  // Each flow's goodput per interval and Jain's index over the flows (flow_throughput.csv,
  // flow_fairness.csv); nullopt: not sampled.
  std::optional<Time> flow_throughput_interval;
  bool cc_trace = false;  // RoGUE: every RTT sample and rate change to cc_trace.csv
};

// What carries the flows at the hosts.
enum class NicModel {
  line_rate,  // net::LineRateFlows: line rate, no ACKs, no recovery (a lost packet strands a flow)
  rnic,       // the soft RNIC: one RC QP pair per flow, RDMA WRITE_WITH_IMM, loss recovery
};

// DCQCN's tunable constants ([nic] dcqcn_* keys; rnic::DcqcnConfig, whose defaults these
// repeat: tests/sim checks they agree). The line rate is the host link's.
struct DcqcnSpec {
  double g = 5.0 / 1024.0;  // alpha gain
  Rate min_rate = Rate::Mbps(1);
  Time alpha_update_period = Time::us(1);
  Time rate_reduce_period = Time::us(4);  // at most one decrease per period
  Time increase_period = Time::us(300);   // rate-increase timer T
  Bytes increase_bytes{32767};            // rate-increase byte counter B
  uint32_t fast_recovery_stages = 5;      // F
  Rate additive_increase = Rate::Mbps(5);
  Rate hyper_increase = Rate::Mbps(50);
  Time cnp_interval = Time::us(4);     // the notification point's minimum time between CNPs
  bool cnp_interval_per_port = false;  // ... of one QP (false) or of the whole port (true)

  // The reaction point these constants describe, on a link of `line_rate`.
  rnic::DcqcnConfig reaction_point(Rate line_rate) const;
};

// [nic.profile.<name>]: hosts whose NIC is a generation profile (rnic::NicProfile: "cx4" or
// "cx5"), with optional overrides of the profile's named differences.
struct NicProfileSpec {
  std::string name;
  std::string where;  // "file:line:column: nic.profile.<name>", for errors found later
  std::vector<uint32_t> hosts;
  std::optional<Time> dcqcn_increase_period;
  std::optional<Bytes> dcqcn_increase_bytes;
  bool tx_window = false;
  std::optional<uint32_t> tx_window_packets;
  bool slow_restart = false;
  bool adaptive_retransmission = false;
  std::optional<Time> adaptive_rto;
  std::optional<Time> ack_delay;
  std::optional<Bytes> rate_change_delay;
  std::optional<uint32_t> per_priority_limiters;
  std::optional<uint32_t> dcqcn_reaction_groups;  // 0: one per QP (overrides cx4's)
};

struct NicConfig {
  NicModel model = NicModel::line_rate;
  std::string recovery = "gbn";  // gbn, irn, srnic or fasr
  bool dcqcn = false;
  DcqcnSpec dcqcn_spec;
  uint32_t ack_every_packets = 8;
  // RC responder: the longest an in-order packet waits for its ACK (0: no bound).
  Time ack_delay = Time::us(8);
  // RC QP timeout exponent: 4.096 us * 2^timeout. 14 (67 ms) is what perftest and rdma_cm
  // deployments commonly set; short timeouts are an explicit choice (docs/scenarios.md).
  uint8_t timeout = 14;
  uint8_t retry_cnt = 7;
  // Selective engines: packets in flight per QP (rnic::recovery::RecoveryConfig::bdp_packets).
  uint32_t bdp_packets = 128;
  // IRN and FaSR: the retransmission timeouts RTO_low (few packets in flight) and RTO_high
  // (rnic::recovery::RecoveryConfig::rto_low / rto_high).
  Time rto_low = Time::us(100);
  Time rto_high = Time::us(320);
  // FaSR's NIC-wide pool (rnic::recovery::FasrPoolConfig).
  uint32_t fasr_units = 20;
  uint32_t fasr_blocks = 256;
  uint32_t fasr_block_bits = 16;
  // FaSR: charge the paper's lean SR header extensions (6 to 14 B, section IV-D) instead of
  // bifrost's 24 B (rnic::recovery::RecoveryConfig::lean_sr_header).
  bool fasr_lean_header = false;
  // Every flow's sender QP paced at this rate by its NIC limiter (plain RC/UC flows of the rnic
  // model only): a sender load below the line rate, as the FaSR paper's "sender load set to 90%".
  std::optional<Rate> qp_rate;
  // The NIC's rate limiters (rnic/rate_limiter.h): bytes sent after a new limit before it holds
  // (RoGUE measured up to 160 KB on ConnectX-3/4), and a bank of limiters per priority class
  // instead of one per QP (0: per QP; ConnectX-3 Pro has 8).
  Bytes rate_change_delay{0};
  uint32_t per_priority_limiters = 0;
  // Send completions and their timestamps when the last packet leaves the NIC, as the real
  // runtime has them (rnic::DeviceConfig::complete_sends_at_transmit): Bifröst RC's RTT samples
  // then run from that departure instead of from posting.
  bool transmit_timestamps = false;
  // The DSCP of the RC responder's ACK and NAK packets (rnic::DataPathConfig::ack_traffic_class):
  // a class of their own, strict above the data's. nullopt: the QP's DSCP, as RoCE does.
  std::optional<uint8_t> rc_ack_dscp;
  // Hosts not named by a profile have the soft RNIC these keys describe.
  std::vector<NicProfileSpec> profiles;
};

// Which transport carries the flows (the [transport] table).
enum class TransportKind {
  rc,          // as [nic] says: line-rate sources, or one plain RC QP pair per flow
  uc,          // one plain UC QP pair per flow ("UC RoCE"): line rate, no recovery
  bifrost_uc,  // Bifröst over UC QPs: software reliability and congestion control
  bifrost_rc,  // Bifröst over RC QPs: the NIC's reliability with backup QPs, software CC
  rogue_rc,    // RoGUE over an RC QP and its shadow: software CC (Vegas), NIC retransmission
  rogue_uc,    // RoGUE over a UC QP: software CC from echoes, nothing retransmitted
  virtuoso,    // Virtuoso: one RC QP per path (host alias), messages split over the paths
};

// Virtuoso's knobs (transport::virtuoso::VirtuosoConfig, docs/transport.md "Virtuoso").
struct VirtuosoSpec {
  uint32_t paths = 1;
  Bytes block{4096};
  Bytes small_send{16 * 1024};
  bool probe = true;
  Bytes probe_size{512 * 1024};
  bool pace_paths = false;  // VirtuosoConfig::pace_paths (ours): path QPs paced at their estimate
  bool chunk_search = false;
  Bytes chunk_initial{64 * 1024};
  Bytes chunk_step{64 * 1024};
  uint32_t max_send_wr = 64;
  uint8_t rc_timeout = 14;
  uint8_t rc_retry_cnt = 7;
};

// RoGUE's knobs (transport::rogue::RogueConfig, docs/transport.md "RoGUE"); unset: its
// defaults (segment and rate step by line rate, the batch a segment). Its Vegas parameters are
// TransportSpec::cc's vegas block.
struct RogueSpec {
  std::optional<Bytes> segment;
  std::optional<Bytes> batch;
  std::optional<Rate> rate_step;
  Bytes holdoff{160'000};
  Time uc_sample_timeout = Time::ms(1);
  uint8_t rc_timeout = 14;
  bool shadow_qp = true;
  bool pace = true;
  bool rc_idle_start_floor = false;  // RogueConfig::rc_idle_start_floor
  uint32_t rc_anchor_every = 0;      // RogueConfig::rc_anchor_every
  bool sample_applied_rate = false;  // RogueConfig::sample_applied_rate
  // The application verbs a flow is posted as (nullopt: the whole flow one verb, up to 2 GiB;
  // RoGUE's Fig. 9 compares 64 KB and 1 KB verbs).
  std::optional<Bytes> verb;
  Time rtt_noise = Time::zero();  // RogueConfig::rtt_noise (Fig. 8)
  // RogueConfig::signal_cost and clock_read_cost (unset: RoGUE's defaults; 0: off).
  std::optional<Time> signal_cost;
  std::optional<Time> clock_read_cost;
};

// The Bifröst knobs a scenario may set (transport::TransportConfig; docs/transport.md).
struct TransportSpec {
  TransportKind kind = TransportKind::rc;
  // profile = "paper" (bifrost-uc / bifrost-rc): the run starts from
  // transport::TransportConfig::paper() and the keys below start from its values.
  bool paper_profile = false;
  // kind = "uc": the size of the WRITE messages a flow is posted as (its last is the rest).
  Bytes uc_message{64 * 1024};
  // The software congestion control: kind and parameter blocks (RoGUE: vegas).
  transport::CcConfig cc{};
  bool chunking = true;
  Bytes unit_size{4096};  // the minimum chunk
  Bytes max_chunk{64 * 1024};
  double chunk_loss_budget = 0.05;  // chunks shrink while losses are seen (0: off)
  Bytes send_threshold{32 * 1024};  // messages up to this go by SEND
  Time base_rtt = Time::us(50);
  Time min_rto = Time::us(500);
  // TransportConfig::rtt_from_late_acks and failover_needs_silence.
  bool rtt_from_late_acks = true;
  bool failover_needs_silence = true;
  Time ack_timer = Time::us(120);
  // ACK coalescing (TransportConfig::ack_every_wqes / ack_every_bytes / hint_when_idle).
  uint32_t ack_every_wqes = 32;
  Bytes ack_every_bytes{32 * 1024};
  bool hint_when_idle = true;
  bool tail_probe = true;  // TransportConfig::tail_probe
  // bifrost-uc: software ACKs as SENDs on the data QP instead of on the UD QP, and UD ACKs in
  // the data's class instead of the higher ACK class (Fig. 4(b)'s comparisons).
  bool acks_on_data_qp = false;
  bool ack_priority = true;
  // bifrost-uc: the modelled host CPU time per completion (EndpointConfig::completion_cost).
  Time completion_cost{};
  uint32_t backup_qps = 2;
  uint8_t rc_retry_cnt = 2;
  uint8_t rc_timeout = 8;
  RogueSpec rogue;        // kind rogue-rc / rogue-uc
  VirtuosoSpec virtuoso;  // kind virtuoso
};

// [upgrade]: the Bifröst paper's non-stop upgrade (Fig. 12). Services start on plain RC (the
// NICs' go-back-N and DCQCN, under PFC); from `to_bifrost` on, a per-RPC runtime flag sends new
// closed-loop requests by the Bifröst [transport]; at `lossless_off` PFC is turned off at every
// switch port and DCQCN at every NIC.
struct UpgradeConfig {
  Time to_bifrost;
  std::optional<Time> lossless_off;
};

struct Scenario {
  std::string source;  // the file name, for messages
  SimulationConfig simulation;
  NicConfig nic;
  TransportSpec transport;
  Topology topology;
  Addressing addressing;  // [topology] host_aliases, [routing]
  SwitchConfig switches;
  std::vector<WorkloadConfig> workloads;
  MetricsConfig metrics;
  std::optional<UpgradeConfig> upgrade;
};

// Parses scenario TOML `text`; `name` appears in messages, and relative paths inside (CDF and
// flow files) are resolved against `base_dir`. Throws Error "name:line:column: ...".
Scenario parse_scenario(std::string_view text, std::string_view name,
                        const std::filesystem::path& base_dir);
// Reads and parses a scenario file; relative paths are resolved against its folder.
Scenario load_scenario(const std::filesystem::path& file);

}  // namespace bifrost::sim::scenario
