#include "session.h"

#include <fmt/format.h>

#include <sys/epoll.h>

#include <algorithm>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/real/clock.h"
#include "bifrost/real/device_settings.h"
#include "bifrost/real/gid_table.h"
#include "bifrost/rnic/connect.h"

namespace bifrost::perf {
namespace {

constexpr uint64_t kMaxBufferPerQp = 64 << 20;

real::ControlChannel open_channel(const Options& o) {
  const Time timeout = Time::from_seconds(o.timeout);
  if (o.is_client()) return real::ControlChannel::connect(o.server, o.port, timeout);
  // A server waits for its client longer than a client waits for its server.
  return real::ControlChannel::accept(o.bind.empty() ? "0.0.0.0" : o.bind, o.port, timeout * 6);
}

nlohmann::json settings_of(const Options& o) {
  return {{"test", o.test},
          {"size", o.size},
          {"all_sizes", o.all_sizes},
          {"qps", o.qps},
          {"connection", o.connection},
          {"transport", o.transport},
          {"verify", o.verify},
          {"tx_depth", o.tx_depth},
          {"base_rtt_us", o.base_rtt_us},
          {"min_rto_us", o.min_rto_us},
          {"line_rate_gbps", o.line_rate_gbps},
          {"cc", o.cc},
          {"loss_gate", o.loss_gate},
          {"chunk_loss_budget", o.chunk_loss_budget},
          {"ecn", o.ecn},
          {"ack_every", o.ack_every},
          {"ack_bytes", o.ack_bytes},
          {"ack_timer_us", o.ack_timer_us},
          {"config", o.config},
          {"chunking", o.chunking},
          {"qp_timeout", o.qp_timeout},
          {"bifrost_rc_timeout", o.bifrost_rc_timeout},
          {"hint_when_idle", o.hint_when_idle},
          {"response_size", o.response_size},
          {"read_threshold", o.read_threshold},
          {"rogue_segment", o.rogue_segment},
          {"rogue_batch", o.rogue_batch},
          {"rogue_shadow", o.rogue_shadow},
          {"rogue_pace", o.rogue_pace},
          {"rogue_signal_cost_us", o.rogue_signal_cost_us},
          {"rogue_clock_read_cost_us", o.rogue_clock_read_cost_us},
          {"paths", o.paths},
          {"virtuoso_probe", o.virtuoso_probe},
          {"probe_bytes", o.probe_bytes},
          {"ack_priority", o.ack_priority}};
}

transport::TransportConfig transport_config(const Options& o) {
  transport::TransportConfig c =
      o.config == "paper" ? transport::TransportConfig::paper() : transport::TransportConfig{};
  c.reliability = o.transport == "bifrost-rc" ? transport::Reliability::hardware_rc
                                              : transport::Reliability::software_uc;
  c.mtu = o.mtu;
  c.base_rtt = Time::from_seconds(o.base_rtt_us / 1e6);
  c.min_rto = Time::from_seconds(o.min_rto_us / 1e6);
  // The tail probe's floor stays where it was before the probe learned its delay (a quarter of
  // the RTO floor, 1.25 ms): the real runtime's hosts delay ACKs by milliseconds when loaded,
  // and that learning was measured only in the simulator.
  c.tail_probe_floor = c.min_rto / 4;
  c.line_rate_bps = static_cast<uint64_t>(o.line_rate_gbps * 1e9);
  c.cc.kind = transport::parse_cc_kind(o.cc);
  c.cc.swift.params.loss_gate = o.loss_gate;
  c.chunk_loss_budget = o.chunk_loss_budget;
  c.chunking = o.chunking;
  c.ack_every_wqes = o.ack_every;
  c.ack_every_bytes = o.ack_bytes;
  c.ack_timer = Time::from_seconds(o.ack_timer_us / 1e6);
  c.hint_when_idle = o.hint_when_idle;
  // A reconnect is agreed by control messages the peer's event loop answers; on a loaded host
  // it may not get to them for milliseconds (the transport's 10 x 1 ms gave up on every QP of
  // a loopback rpc_bw run), so ask every RTO floor, 20 times.
  c.reconnect_interval = c.min_rto;
  c.reconnect_attempts = 20;
  c.rc_timeout = o.bifrost_rc_timeout;
  // send_bw: every message one SEND (the small-message path), however large.
  if (o.op() == Op::send) c.send_threshold = std::max(c.send_threshold, o.max_size());
  return c;
}

transport::rogue::RogueConfig rogue_config(const Options& o) {
  transport::rogue::RogueConfig c;
  c.qp_type =
      o.transport == "rogue-rc" ? transport::rogue::QpType::rc : transport::rogue::QpType::uc;
  c.line_rate = Rate::bps(static_cast<int64_t>(o.line_rate_gbps * 1e9));
  c.mtu = o.mtu;
  c.segment_bytes = o.rogue_segment;
  c.batch_bytes = o.rogue_batch;
  c.shadow_qp = o.rogue_shadow;
  c.pace = o.rogue_pace;
  c.signal_cost = Time::from_seconds(o.rogue_signal_cost_us / 1e6);
  c.clock_read_cost = Time::from_seconds(o.rogue_clock_read_cost_us / 1e6);
  // The application's QP timeout (perftest's --qp_timeout); RoGUE's retry count stays 1.
  c.rc_timeout = o.qp_timeout;
  // The soft NIC answers a resync request only when its peer's event loop gets to it: ask
  // every 5 ms, 20 times, as Bifröst's reconnect does here.
  c.resync_interval = Time::ms(5);
  c.resync_attempts = 20;
  // send_bw / send_lat: a SEND lands whole in one of the library's receives.
  if (o.op() == Op::send) c.max_send_bytes = std::max<uint64_t>(c.max_send_bytes, o.max_size());
  c.validate();
  return c;
}

transport::virtuoso::VirtuosoConfig virtuoso_config(const Options& o) {
  transport::virtuoso::VirtuosoConfig c;
  c.paths = o.paths;
  c.mtu = o.mtu;
  c.rc_timeout = o.qp_timeout;
  c.probe = o.virtuoso_probe;
  c.probe_bytes = o.probe_bytes;
  // A receive buffer advert or PSN resync waits for the peer's event loop: ask every 5 ms, as
  // RoGUE's resync does here.
  c.control_interval = Time::ms(5);
  c.control_attempts = 20;
  c.validate();
  return c;
}

}  // namespace

bool holds_pattern(uint32_t seed, std::span<const std::byte> bytes, uint64_t offset) {
  std::byte expect[4096];
  for (uint64_t off = 0; off < bytes.size(); off += sizeof expect) {
    const size_t n = std::min<size_t>(sizeof expect, bytes.size() - off);
    rnic::fill_pattern(seed, offset + off, std::span(expect, n));
    if (std::memcmp(expect, bytes.data() + off, n) != 0) return false;
  }
  return true;
}

Session::Session(const Options& options)
    : options_(options),
      channel_(open_channel(options)),
      loop_(
          std::make_unique<real::EventLoop>(real::EventLoopConfig{.busy_poll = options.spins()})) {
  const world::Ipv4 local =
      options_.bind.empty() ? channel_.local_ip() : world::parse_ipv4(options_.bind);
  // Virtuoso: GID 0 is `local`, GIDs 1..paths the aliases its paths send from.
  const std::vector<world::Ipv4> gids = options_.uses_virtuoso()
                                            ? real::multipath_gids(local, options_.paths)
                                            : std::vector<world::Ipv4>{local};
  port_ = std::make_unique<real::UdpPort>(
      *loop_,
      real::UdpPortConfig{.local_addresses = gids, .gso = options.gso, .lend_payloads = true});

  rnic::DeviceConfig dc;
  dc.name = options_.is_client() ? "perf-client" : "perf-server";
  dc.seed = static_cast<uint64_t>(real::monotonic_now().picoseconds());
  dc.gids = gids;
  dc.max_mtu = options_.mtu;
  real::apply_real_world_settings(dc);
  dc.data_path.ecn_capable = options_.ecn;
  device_ = std::make_unique<rnic::Device>(*loop_, dc);
  device_->attach(*port_);

  slot_bytes_ = (options_.max_size() + recv_offset() + 63) & ~uint64_t{63};
  slots_ = static_cast<uint32_t>(
      std::clamp<uint64_t>(kMaxBufferPerQp / slot_bytes_, 1, options_.tx_depth));
  const uint64_t notices = options_.uses_virtuoso() ? uint64_t{2 * kNoticeBytes} * slots_ : 0;
  const uint64_t length = (slot_bytes_ * slots_ + notices) * options_.qps;
  memory_ = std::make_unique<rnic::ByteMemory>(kBufferBase, length);
  if (options_.uses_bifrost() || options_.uses_rogue() || options_.uses_virtuoso()) {
    transport::EndpointConfig ec;
    ec.memory = transport::MemoryKind::bytes;
    ec.seed = dc.seed;
    ec.cq_entries = 1 << 16;
    if (!options_.ack_priority) ec.ack_traffic_class = ec.data_traffic_class;
    endpoint_ = std::make_unique<transport::Endpoint>(*device_, ec);
  }
  // Messages are read in place by the NIC; the Bifröst endpoint's own memory (receive slots,
  // arena) lives in its protection domain, and so must the application's.
  const rnic::ProtectionDomain pd = endpoint_ ? endpoint_->pd() : device_->alloc_pd();
  // Over Bifröst the peer addresses this buffer only in read_bw (one-sided READs of the
  // server's slots; over UC the server writes the data back into the client's).
  const bool remote = !options_.uses_bifrost() || options_.op() == Op::read;
  const auto access =
      remote ? rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read
             : rnic::Access::local_write;
  mr_ = &device_->reg_mr(pd, kBufferBase, length, access, memory_.get());
  if (options_.uses_bifrost()) {
    build_bifrost(local, length);
    return;
  }
  if (options_.uses_rogue()) {
    build_rogue(local, length);
    return;
  }
  if (options_.uses_virtuoso()) {
    build_virtuoso(local, length);
    return;
  }
  cq_ = &device_->create_cq(1 << 20);
  const rnic::QpType type = ud()                          ? rnic::QpType::ud
                            : options_.connection == "UC" ? rnic::QpType::uc
                                                          : rnic::QpType::rc;
  RandomStream rng(dc.seed, "psn");
  describe_self(local, length);
  for (uint32_t i = 0; i < options_.qps; ++i) {
    qps_.push_back(&device_->create_qp(pd, type, *cq_, *cq_));
    mine_.qps.push_back({qps_.back()->qp_num(), static_cast<uint32_t>(rng.next_u64() & 0xFFFFFF)});
  }
  peer_ = real::exchange_peer_info(channel_, mine_, Time::from_seconds(options_.timeout));
  for (uint32_t i = 0; i < options_.qps; ++i) {
    rnic::QpConnection c;
    c.dest_ip = peer_.ip;
    c.dest_qp_num = peer_.qps[i].qpn;
    c.sq_psn = mine_.qps[i].psn;
    c.rq_psn = peer_.qps[i].psn;
    c.path_mtu = options_.mtu;
    c.timeout = options_.qp_timeout;
    c.retry_cnt = 7;
    c.rnr_retry = 7;
    c.qkey = kUdQkey;
    rnic::connect_qp(*qps_[i], c);
  }
}

void Session::build_bifrost(world::Ipv4 local, uint64_t length) {
  const transport::TransportConfig config = transport_config(options_);
  if (options_.max_size() > config.max_message_size()) {
    throw Error("-s {} is larger than a Bifröst message can be ({} bytes)", options_.max_size(),
                config.max_message_size());
  }
  for (uint32_t i = 0; i < options_.qps; ++i) {
    connections_.push_back(&endpoint_->create_connection(config));
    mine_.offers.push_back(endpoint_->offer(*connections_.back()));
  }
  describe_self(local, length);
  peer_ = real::exchange_peer_info(channel_, mine_, Time::from_seconds(options_.timeout));
  for (uint32_t i = 0; i < options_.qps; ++i) {
    endpoint_->connect(*connections_[i], peer_.offers[i]);
  }
}

void Session::build_rogue(world::Ipv4 local, uint64_t length) {
  const transport::rogue::RogueConfig config = rogue_config(options_);
  for (uint32_t i = 0; i < options_.qps; ++i) {
    rogue_.push_back(std::make_unique<transport::rogue::RogueConnection>(*endpoint_, config));
    mine_.offers.push_back(rogue_.back()->offer());
  }
  describe_self(local, length);
  peer_ = real::exchange_peer_info(channel_, mine_, Time::from_seconds(options_.timeout));
  for (uint32_t i = 0; i < options_.qps; ++i) rogue_[i]->connect(peer_.offers[i]);
  if (!options_.rogue_trace.empty()) trace_rogue(options_.rogue_trace);
}

void Session::build_virtuoso(world::Ipv4 local, uint64_t length) {
  const transport::virtuoso::VirtuosoConfig config = virtuoso_config(options_);
  for (uint32_t i = 0; i < options_.qps; ++i) {
    mp_.push_back(std::make_unique<transport::virtuoso::MpConnection>(*endpoint_, config));
    mine_.mp_offers.push_back(mp_.back()->offer());
  }
  describe_self(local, length);
  const Time timeout = Time::from_seconds(options_.timeout);
  peer_ = real::exchange_peer_info(channel_, mine_, timeout);
  // Connecting starts the probe flows, timed from here: both sides connect together, so the
  // peer's NIC answers the first probe from its first packet.
  barrier("connect", timeout);
  for (uint32_t i = 0; i < options_.qps; ++i) mp_[i]->connect(peer_.mp_offers[i]);
  const Time deadline = loop_->now() + timeout;
  loop_->run_until(
      [this] { return std::ranges::none_of(mp_, [](const auto& m) { return m->probing(); }); },
      deadline);
  if (std::ranges::any_of(mp_, [](const auto& m) { return m->probing(); })) {
    throw Error("probing the Virtuoso paths took longer than --timeout {} s", options_.timeout);
  }
  // The peer's probes need this NIC until they end too: the loop runs until the peer's word
  // arrives (watching the channel, so that the loop wakes for it).
  channel_.send({{"phase", "probed"}});
  bool peer_done = channel_.readable();  // already read with an earlier message?
  loop_->add_fd(channel_.fd(), EPOLLIN, [&peer_done](uint32_t) { peer_done = true; });
  loop_->run_until([&peer_done] { return peer_done; }, loop_->now() + timeout);
  loop_->remove_fd(channel_.fd());
  expect_phase("probed", timeout);
}

void Session::barrier(const char* phase, Time timeout) {
  channel_.send({{"phase", phase}});
  expect_phase(phase, timeout);
}

void Session::expect_phase(const char* phase, Time timeout) {
  const nlohmann::json m = channel_.receive(timeout);
  if (m.value("phase", "") != phase) {
    throw Error("the peer sent '{}' where '{}' was due", m.dump(), phase);
  }
}

void Session::trace_rogue(const std::string& path) {
  rogue_trace_.open(path);
  if (!rogue_trace_) throw Error("cannot write {}", path);
  rogue_trace_ << "connection,event,window,time_us,cwnd_bytes,batches_in_flight,rtt_us,"
                  "base_rtt_us,held_off,rate_gbps\n";
  for (size_t c = 0; c < rogue_.size(); ++c) {
    rogue_[c]->set_trace([this, c](const transport::rogue::TraceEvent& e) {
      using Kind = transport::rogue::TraceEvent::Kind;
      const char* event = e.kind == Kind::sample ? "sample"
                          : e.kind == Kind::rate ? "rate"
                                                 : "pumped";
      const double rate = e.new_rate ? e.new_rate->gbps() : 0.0;
      rogue_trace_ << fmt::format("{},{},{},{:.3f},{},{},{:.3f},{:.3f},{:d},{:.4f}\n", c, event,
                                  e.read ? "read" : "write", e.now.microseconds(), e.cwnd,
                                  e.batches_in_flight, e.rtt.microseconds(),
                                  e.base_rtt.microseconds(), e.held_off, rate);
    });
  }
}

void Session::describe_self(world::Ipv4 local, uint64_t length) {
  mine_.ip = local;
  mine_.mtu = options_.mtu;
  mine_.buffer_va = kBufferBase;
  mine_.buffer_length = length;
  mine_.rkey = mr_->rkey;
  mine_.settings = settings_of(options_);
}

Session::~Session() {
  // RoGUE and Virtuoso connections unregister from the endpoint.
  rogue_.clear();
  mp_.clear();
  // Connections post to the device until they are gone; the device detaches from the port
  // when destroyed: endpoint, then device, then port.
  endpoint_.reset();
  device_.reset();
  port_.reset();
}

}  // namespace bifrost::perf
