#include "bifrost/sim/transport_flows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>

#include "bifrost/core/error.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/sim/ecmp_path_oracle.h"

namespace bifrost::sim {

namespace {

// Each endpoint's application region: slots of max_message_size() bytes, each priority's
// endpoint in an address range of its own.
constexpr uint64_t kAppBase = 0x7000'0000'0000;
constexpr uint64_t kAppSpan = uint64_t{1} << 40;
constexpr uint64_t kMaxSlots = uint64_t{1} << 16;
constexpr size_t kTagBytes = sizeof(uint64_t);
// Virtuoso's messages: flows are cut into MP WRs of at most this.
constexpr uint64_t kVirtuosoMessage = uint64_t{1} << 32;

// The two hosts (lower first), lane and priority in one key: hosts and lanes below 2^20.
uint64_t channel_key(uint32_t low, uint32_t high, uint32_t lane, uint8_t priority) {
  return uint64_t{low} << 43 | uint64_t{high} << 23 | uint64_t{lane} << 3 | priority;
}

// RTT samples are microseconds to milliseconds; 0.1 % keeps p99.9 of a 10 us RTT within 10 ns.
constexpr double kRttRelativeError = 0.001;

world::Payload tag_payload(uint64_t id, uint64_t length) {
  world::Payload p;
  const size_t n = std::min<uint64_t>(kTagBytes, length);
  p.bytes.resize(n);
  std::memcpy(p.bytes.data(), &id, n);  // little-endian hosts only, as the wire code assumes
  p.length = static_cast<uint32_t>(n);
  return p;
}

}  // namespace

TransportFlows::TransportFlows(EventKernel& kernel, Network& network,
                               const TransportFlowsConfig& config)
    : kernel_(kernel), config_(config) {
  rnic::check_mtu(config.transport.mtu);
  config_.transport.validate();
  slot_bytes_ = config_.transport.max_message_size();
  if (config_.rogue) {
    config_.rogue->validate();
    slot_bytes_ = config_.rogue_verb_bytes != 0
                      ? std::min(config_.rogue_verb_bytes, config_.rogue->max_verb_bytes)
                      : config_.rogue->max_verb_bytes;
  }
  if (config_.virtuoso) {
    config_.virtuoso->validate();
    slot_bytes_ = std::min(config_.virtuoso->max_message, kVirtuosoMessage);
    // Under ECMP Virtuoso picks source ports onto distinct paths with the switches' known hash.
    if (network.addressing().routing == scenario::RoutingMode::ecmp &&
        config_.virtuoso->paths > 1) {
      path_oracle_ = ecmp_path_oracle(network, config_.virtuoso->paths);
    }
  }
  if (config_.plain_rc) {
    config_.plain_rc->validate();
    if (config_.plain_rc->max_message_size() != slot_bytes_) {
      throw Error(
          "transport flows: the plain RC lanes' largest message ({} B) must be the "
          "transport's ({} B): flows are cut into messages of one size",
          config_.plain_rc->max_message_size(), slot_bytes_);
    }
  }
  slot_count_ = static_cast<uint32_t>(std::min(kMaxSlots, kAppSpan / slot_bytes_));
  if (network.host_count() >= (1u << 20)) {
    throw Error("transport flows: {} hosts; at most 2^20", network.host_count());
  }
  hosts_.resize(network.host_count());
  for (uint32_t h = 0; h < network.host_count(); ++h) {
    net::Host& host = network.host(h);
    rnic::DeviceConfig dc = detail::host_device(config.device, config.device_by_host, h);
    dc.name = host.name();
    dc.gids = host.addresses();
    hosts_[h].name = host.name();
    hosts_[h].device = std::make_unique<rnic::Device>(kernel, dc);
    hosts_[h].device->attach(host);
  }
}

TransportFlows::~TransportFlows() = default;

void TransportFlows::add(const workload::Flow& flow, uint32_t lane, FlowDone done) {
  if (flow.id != flows_.size()) {
    throw Error("transport flows must be added in id order: expected {}, got {}", flows_.size(),
                flow.id);
  }
  if (flow.src >= hosts_.size() || flow.dst >= hosts_.size() || flow.src == flow.dst) {
    throw Error("flow {}: needs two different hosts below {}", flow.id, hosts_.size());
  }
  if (lane >= (1u << 20)) throw Error("flow {}: lane {} is not below 2^20", flow.id, lane);
  FlowState& f = flows_.emplace_back();
  f.flow = flow;
  f.lane = lane;
  f.done = std::move(done);
  records_.emplace_back();
  const uint64_t id = flow.id;
  kernel_.at(flow.start, [this, id] { start(id); });
}

TransportFlows::Party& TransportFlows::party(uint32_t host, uint8_t priority) {
  std::unique_ptr<Party>& slot = hosts_[host].parties[priority];
  if (slot) return *slot;
  slot = std::make_unique<Party>();
  transport::EndpointConfig ec = config_.endpoint;
  ec.seed = config_.endpoint.seed + uint64_t{host} * workload::kPriorityClasses + priority;
  // DSCP = priority * 8, which the hosts' and switches' DSCP maps turn back into the priority.
  ec.data_traffic_class = static_cast<uint8_t>(priority << 5);
  if (config_.acks_in_data_class) ec.ack_traffic_class = ec.data_traffic_class;
  rnic::Device& device = *hosts_[host].device;
  slot->endpoint = std::make_unique<transport::Endpoint>(device, ec);
  const uint64_t base = kAppBase + priority * kAppSpan;
  // RoGUE and Virtuoso write into the peer's inbox, the region's second half.
  const bool one_sided = config_.rogue || config_.virtuoso;
  const uint64_t size = uint64_t{slot_count_} * slot_bytes_ * (one_sided ? 2 : 1);
  slot->app = std::make_unique<rnic::TokenMemory>(base, size);
  // RoGUE: WRITE flows land in the peer's inbox, READ flows fetch from the peer's slots.
  const rnic::Access access =
      one_sided ? rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read
                : rnic::Access::local_write;
  slot->region = &device.reg_mr(slot->endpoint->pd(), base, size, access, slot->app.get());
  return *slot;
}

TransportFlows::Channel& TransportFlows::channel(uint32_t src, uint32_t dst, uint32_t lane,
                                                 uint8_t priority) {
  const uint32_t low = std::min(src, dst);
  const uint32_t high = std::max(src, dst);
  std::unique_ptr<Channel>& c = channels_[channel_key(low, high, lane, priority)];
  if (c) return *c;
  c = std::make_unique<Channel>();
  c->host = {low, high};
  c->lane = lane;
  c->priority = priority;
  c->rtt = {ApproxPercentiles(kRttRelativeError), ApproxPercentiles(kRttRelativeError)};
  const transport::TransportConfig& config =
      (lane & kPlainRcLane) != 0 && config_.plain_rc ? *config_.plain_rc : config_.transport;
  Channel* raw = c.get();
  if (config_.rogue) {
    connect_rogue(*raw);
    return *raw;
  }
  if (config_.virtuoso) {
    connect_virtuoso(*raw);
    return *raw;
  }
  for (int side = 0; side < 2; ++side) {
    c->party[side] = &party(c->host[side], priority);
    c->half[side] = &c->party[side]->endpoint->create_connection(config);
    c->half[side]->set_delivery_handler(
        [this, raw, side](const transport::Delivery& d) { on_delivery(*raw, side, d); });
    c->half[side]->set_rtt_observer([raw, side](Time rtt) {
      raw->rtt[side].add(rtt.microseconds());
      raw->rtt_sum_us[side] += rtt.microseconds();
    });
  }
  c->party[0]->endpoint->connect(*c->half[0], c->party[1]->endpoint->offer(*c->half[1]));
  c->party[1]->endpoint->connect(*c->half[1], c->party[0]->endpoint->offer(*c->half[0]));
  return *c;
}

void TransportFlows::start(uint64_t id) {
  FlowState& f = flows_[id];
  Channel& c = channel(f.flow.src, f.flow.dst, f.lane, f.flow.priority);
  uint64_t left = f.flow.size.count();
  f.messages = static_cast<uint32_t>((left + slot_bytes_ - 1) / slot_bytes_);
  f.left = f.messages;
  while (left > 0) {
    const uint64_t length = std::min(left, slot_bytes_);
    left -= length;
    records_[id].packets += rnic::packet_count(length, config_.transport.mtu);
    send_message(c, c.side_of(f.flow.src), id, length);
  }
}

void TransportFlows::send_message(Channel& c, int side, uint64_t id, uint64_t length) {
  Party& p = *c.party[side];
  uint32_t slot = 0;
  if (!p.free_slots.empty()) {
    slot = p.free_slots.back();
    p.free_slots.pop_back();
  } else if (p.next_slot < slot_count_) {
    slot = p.next_slot++;
  } else {
    throw Error("transport flows: host {} has {} messages outstanding; at most {}", c.host[side],
                slot_count_, slot_count_);
  }
  const uint64_t addr = p.app->base() + uint64_t{slot} * slot_bytes_;
  p.app->write(addr, tag_payload(id, length));
  if (config_.rogue) {
    post_rogue(c, side, id, slot, length);
    return;
  }
  if (config_.virtuoso) {
    post_virtuoso(c, side, id, slot, length);
    return;
  }
  Party* party = &p;
  c.half[side]->send(transport::MessageBuffer{p.region, addr, length},
                     [this, id, party, slot](const transport::SendCompletion& done) {
                       party->free_slots.push_back(slot);
                       on_message_done(id, done.status == transport::SendStatus::failed);
                     });
}

const transport::rogue::RogueConnection* TransportFlows::rogue_connection(uint32_t host,
                                                                          uint32_t peer,
                                                                          uint32_t lane,
                                                                          uint8_t priority) const {
  const auto it =
      channels_.find(channel_key(std::min(host, peer), std::max(host, peer), lane, priority));
  if (it == channels_.end()) return nullptr;
  return it->second->rogue[it->second->side_of(host)].get();
}

void TransportFlows::connect_rogue(Channel& c) {
  for (int side = 0; side < 2; ++side) {
    c.party[side] = &party(c.host[side], c.priority);
    c.rogue[side] = std::make_unique<transport::rogue::RogueConnection>(*c.party[side]->endpoint,
                                                                        *config_.rogue);
    Channel* raw = &c;
    c.rogue[side]->set_rtt_observer([raw, side](Time rtt) {
      raw->rtt[side].add(rtt.microseconds());
      raw->rtt_sum_us[side] += rtt.microseconds();
    });
    // wr_id: the flow id above the 16 bits of the message's slot, which is the data holder's:
    // this side's for a WRITE, the peer's for a READ.
    c.rogue[side]->set_completion_handler(
        [this, raw, side](const transport::rogue::Completion& done) {
          on_one_sided_done(*raw, side, done.wr_id, done.op == transport::rogue::Op::read,
                            done.status != transport::rogue::Status::success);
        });
  }
  c.rogue[0]->connect(c.rogue[1]->offer());
  c.rogue[1]->connect(c.rogue[0]->offer());
  if (config_.cc_trace) {
    trace_rogue(c, 0);
    trace_rogue(c, 1);
  }
}

void TransportFlows::trace_rogue(Channel& c, int side) {
  c.rogue[side]->set_trace([this, raw = &c, side](const transport::rogue::TraceEvent& e) {
    if (e.kind == transport::rogue::TraceEvent::Kind::pumped) return;
    const bool sample = e.kind == transport::rogue::TraceEvent::Kind::sample;
    cc_trace_.push_back(metrics::CcTraceRow{
        .at = e.now,
        .host = hosts_[raw->host[side]].name,
        .peer = hosts_[raw->host[1 - side]].name,
        .lane = raw->lane,
        .priority = raw->priority,
        .read = e.read,
        .sample = sample,
        .cwnd_bytes = e.cwnd,
        .rtt = e.rtt,
        .base_rtt = e.base_rtt,
        .held_off = e.held_off,
        .rate_bps = e.new_rate ? static_cast<uint64_t>(e.new_rate->bits_per_second()) : 0});
  });
}

TransportFlows::OneSided TransportFlows::one_sided(const Channel& c, int side, uint32_t slot,
                                                   uint64_t length) const {
  const Party& holder = *c.party[side];
  const Party& lander = *c.party[1 - side];
  return OneSided{
      .source = {holder.region, holder.app->base() + uint64_t{slot} * slot_bytes_, length},
      .inbox = {lander.region, lander.app->base() + (uint64_t{slot_count_} + slot) * slot_bytes_,
                length}};
}

void TransportFlows::on_one_sided_done(Channel& c, int side, uint64_t wr_id, bool read,
                                       bool failed) {
  // wr_id: the flow id above the 16 bits of the message's slot, which is the data holder's:
  // this side's for a WRITE, the peer's for a READ.
  const int holder = read ? 1 - side : side;
  c.party[holder]->free_slots.push_back(static_cast<uint32_t>(wr_id & 0xFFFF));
  on_message_done(wr_id >> 16, failed);
}

void TransportFlows::post_rogue(Channel& c, int side, uint64_t id, uint32_t slot, uint64_t length) {
  // `side` holds the data in `slot`; it lands in the other side's inbox at the same slot.
  const OneSided ends = one_sided(c, side, slot, length);
  const bool read = flows_[id].flow.op == workload::FlowOp::read;
  transport::rogue::Work work;
  work.wr_id = id << 16 | slot;
  work.op = read ? transport::rogue::Op::read : transport::rogue::Op::write;
  if (read) {
    // The destination READs the source's slot into its inbox.
    work.local = ends.inbox;
    work.remote = transport::RemoteAddress{ends.source.addr, ends.source.region->rkey};
    c.rogue[1 - side]->post(work);
    return;
  }
  work.local = ends.source;
  work.remote = transport::RemoteAddress{ends.inbox.addr, ends.inbox.region->rkey};
  c.rogue[side]->post(work);
}

void TransportFlows::connect_virtuoso(Channel& c) {
  for (int side = 0; side < 2; ++side) {
    c.party[side] = &party(c.host[side], c.priority);
    c.virtuoso[side] = std::make_unique<transport::virtuoso::MpConnection>(
        *c.party[side]->endpoint, *config_.virtuoso, &path_estimates_);
    if (path_oracle_) c.virtuoso[side]->set_path_oracle(path_oracle_);
    Channel* raw = &c;
    c.virtuoso[side]->set_completion_handler(
        [this, raw, side](const transport::virtuoso::MpCompletion& done) {
          on_one_sided_done(*raw, side, done.wr_id, done.op == transport::virtuoso::MpOp::read,
                            !done.ok);
        });
  }
  const transport::virtuoso::MpOffer a = c.virtuoso[0]->offer();
  c.virtuoso[0]->connect(c.virtuoso[1]->offer());
  c.virtuoso[1]->connect(a);
}

void TransportFlows::post_virtuoso(Channel& c, int side, uint64_t id, uint32_t slot,
                                   uint64_t length) {
  const OneSided ends = one_sided(c, side, slot, length);
  if (flows_[id].flow.op == workload::FlowOp::read) {
    c.virtuoso[1 - side]->post_send(
        transport::virtuoso::MpWr{.wr_id = id << 16 | slot,
                                  .op = transport::virtuoso::MpOp::read,
                                  .local = ends.inbox,
                                  .remote = {ends.source.addr, ends.source.region->rkey}});
    return;
  }
  c.virtuoso[side]->post_send(
      transport::virtuoso::MpWr{.wr_id = id << 16 | slot,
                                .op = transport::virtuoso::MpOp::write,
                                .local = ends.source,
                                .remote = {ends.inbox.addr, ends.inbox.region->rkey}});
}

void TransportFlows::on_delivery(const Channel& c, int side, const transport::Delivery& d) {
  std::array<std::byte, kTagBytes> bytes{};
  const size_t n = std::min<uint64_t>(kTagBytes, d.length);
  d.memory->copy_out(d.addr, std::span(bytes).first(n));
  uint64_t id = 0;
  std::memcpy(&id, bytes.data(), kTagBytes);
  const bool known = id < flows_.size() && flows_[id].flow.src == c.host[1 - side] &&
                     flows_[id].flow.dst == c.host[side] && flows_[id].messages > 0;
  if (known) {
    ++flows_[id].deliveries;
  } else {
    ++unidentified_;
  }
}

uint64_t TransportFlows::delivered_bytes(uint64_t id) const {
  const FlowState& f = flows_[id];
  const uint64_t size = f.flow.size.count();
  if (records_[id].complete) return size;
  return std::min(size, uint64_t{f.messages - f.left} * slot_bytes_);
}

void TransportFlows::on_message_done(uint64_t id, bool failed) {
  FlowState& f = flows_[id];
  RnicFlowRecord& r = records_[id];
  if (r.complete || r.failed) return;
  if (failed) {
    r.failed = true;
  } else if (--f.left > 0) {
    return;
  } else {
    r.complete = true;
    ++completed_;
  }
  r.finish = kernel_.now();
  if (f.done) f.done(id);
}

void TransportFlows::disable_nic_dcqcn() {
  for (Host& h : hosts_) h.device->disable_dcqcn();
}

rnic::DataPathCounters TransportFlows::counters() const {
  rnic::DataPathCounters sum;
  for (const Host& h : hosts_) sum += h.device->data_path_counters();
  return sum;
}

TransportTotals TransportFlows::totals() const {
  TransportTotals t;
  for (const Host& h : hosts_) {
    for (const auto& party : h.parties) {
      if (!party) continue;
      const transport::EndpointStats& e = party->endpoint->stats();
      t.receive_completions += e.receive_completions;
      t.receive_wait_total += e.receive_wait_total;
      t.receive_wait_max = std::max(t.receive_wait_max, e.receive_wait_max);
    }
  }
  for (const auto& [key, c] : channels_) {
    ++t.connections;
    for (const auto& rogue : c->rogue) {
      if (!rogue) continue;
      const transport::rogue::RogueStats& s = rogue->stats();
      t.messages += s.verbs_completed;
      t.chunks += s.segments_posted;
      t.retransmitted_wqes += s.resent_segments;
      t.losses_detected += s.lost_echoes;
      t.timeouts += s.sample_timeouts;
      t.tail_probes += s.probes;
      t.failovers += s.shadow_switches;
      t.duplicates += s.duplicates_suppressed;
    }
    for (const auto& mp : c->virtuoso) {
      if (!mp) continue;
      const transport::virtuoso::VirtuosoStats& s = mp->stats();
      t.messages += s.mp_completions;
      t.chunks += s.wrs_posted;
      t.retransmitted_wqes += s.wrs_reposted;
      t.failovers += s.recoveries;
      t.duplicates += s.duplicates_dropped;
    }
    for (const transport::Connection* half : c->half) {
      if (half == nullptr) continue;
      const transport::SenderStats& s = half->sender_stats();
      t.messages += s.messages_sent;
      t.chunks += s.chunks;
      t.retransmitted_wqes += s.retransmitted_wqes;
      t.losses_detected += s.losses_detected;
      t.timeouts += s.timeouts;
      t.tail_probes += s.tail_probes;
      t.failovers += s.failovers;
      t.spurious_timeouts += s.spurious_timeouts;
      t.failovers_refuted += s.failovers_refuted;
      t.duplicates += half->receiver_stats().duplicates;
    }
  }
  return t;
}

std::vector<metrics::TransportRttDirection> TransportFlows::rtt_by_direction() const {
  std::vector<metrics::TransportRttDirection> out;
  for (const auto& [key, c] : channels_) {
    for (int side = 0; side < 2; ++side) {
      const ApproxPercentiles& r = c->rtt[side];
      if (r.count() == 0) continue;
      out.push_back(metrics::TransportRttDirection{
          .src = hosts_[c->host[side]].name,
          .dst = hosts_[c->host[1 - side]].name,
          .lane = c->lane,
          .priority = c->priority,
          .samples = r.count(),
          .min_us = r.min(),
          .mean_us = c->rtt_sum_us[side] / static_cast<double>(r.count()),
          .p50_us = r.percentile(50),
          .p99_us = r.percentile(99),
          .p999_us = r.percentile(99.9),
          .max_us = r.max()});
    }
  }
  // By source, then destination, lane and priority: the map's order is not stable.
  std::ranges::sort(out, [](const auto& a, const auto& b) {
    return std::tie(a.src, a.dst, a.lane, a.priority) < std::tie(b.src, b.dst, b.lane, b.priority);
  });
  return out;
}

}  // namespace bifrost::sim
