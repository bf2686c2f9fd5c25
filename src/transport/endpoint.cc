#include "bifrost/transport/endpoint.h"

#include <algorithm>
#include <array>

#include "bifrost/core/error.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/responder.h"

namespace bifrost::transport {

namespace {

using rnic::kGrhBytes;  // a UD receive buffer starts with room for the GRH
constexpr uint32_t kAckSlotBytes = 256;
static_assert(kGrhBytes + kSoftAckMaxSize <= kAckSlotBytes);
static_assert(kGrhBytes + kControlMessageSize <= kAckSlotBytes);
constexpr size_t kPollBatch = 64;
// Each piece of transport memory gets its own address range with a gap, so a stray address
// never lands in a neighbour.
constexpr uint64_t kMemoryAlignment = uint64_t{1} << 20;

}  // namespace

Endpoint::Endpoint(rnic::Device& device, EndpointConfig config)
    : device_(device),
      config_(config),
      random_(config.seed, device.name() + "/transport"),
      pd_(device.alloc_pd()),
      clock_(device.scheduler(), device) {
  ack_cq_ = &device_.create_cq(config_.cq_entries);
  data_cq_ = &device_.create_cq(config_.cq_entries);
  ud_qp_ = &device_.create_qp(pd_, rnic::QpType::ud, *ack_cq_, *ack_cq_);
  rnic::QpConnection ud;
  ud.sgid_index = config_.gid_index;
  ud.traffic_class = config_.ack_traffic_class;
  ud.qkey = config_.qkey;
  rnic::connect_qp(*ud_qp_, ud);
  const uint64_t slots = uint64_t{config_.ack_receive_slots} + config_.ack_send_slots;
  ack_memory_ = make_memory(slots * kAckSlotBytes);
  ack_region_ = &device_.reg_mr(pd_, ack_memory_->base(), ack_memory_->size(),
                                rnic::Access::local_write, ack_memory_.get());
  for (uint32_t slot = 0; slot < config_.ack_receive_slots; ++slot) repost_ack_receive(slot);
  for (uint32_t i = config_.ack_send_slots; i-- > 0;) {
    free_ack_send_slots_.push_back(config_.ack_receive_slots + i);
  }
  ack_cq_->set_handler([this] { schedule_poll(); });
  data_cq_->set_handler([this] { schedule_poll(); });
}

Endpoint::~Endpoint() = default;

Connection& Endpoint::create_connection(const TransportConfig& config) {
  const auto id = static_cast<uint32_t>(handlers_.size() + 1);
  connections_.push_back(std::make_unique<Connection>(*this, id, config));
  Connection& c = *connections_.back();
  handlers_.push_back(&c);
  for (const Path& q : c.qps()) by_qpn_[q.qp->qp_num()] = &c;
  return c;
}

uint32_t Endpoint::add_handler(EndpointHandler& handler) {
  handlers_.push_back(&handler);
  return static_cast<uint32_t>(handlers_.size());
}

void Endpoint::remove_handler(uint32_t id) {
  if (id < 1 || id > handlers_.size()) throw Error("remove_handler: no handler {}", id);
  EndpointHandler* gone = handlers_[id - 1];
  handlers_[id - 1] = nullptr;
  std::erase_if(by_qpn_, [gone](const auto& entry) { return entry.second == gone; });
}

ConnectionOffer Endpoint::offer(const Connection& connection) const {
  ConnectionOffer o;
  o.ip = ip();
  o.ud_qpn = ud_qpn();
  o.qkey = config_.qkey;
  o.connection_id = connection.id();
  o.reliability = connection.config().reliability;
  o.mtu = connection.config().mtu;
  for (const Path& q : connection.qps()) {
    o.qps.push_back(ConnectionOffer::Qp{.qpn = q.qp->qp_num(), .first_psn = q.first_psn});
  }
  return o;
}

void Endpoint::connect(Connection& connection, const ConnectionOffer& peer) {
  if (peer.reliability != connection.config().reliability) {
    throw Error("connect: the peer's connection uses the other reliability mode");
  }
  if (peer.qps.size() != connection.qps().size()) {
    throw Error("connect: the peer offers {} QPs, this connection has {}", peer.qps.size(),
                connection.qps().size());
  }
  connection.attach_peer(peer);
}

void Endpoint::connect_path(const Path& path, const ConnectionOffer& peer, size_t index,
                            uint32_t mtu, uint8_t rc_timeout, uint8_t rc_retry_cnt) const {
  rnic::connect_qp(
      *path.qp,
      rnic::QpConnection{
          .dest_ip = index < peer.qp_addresses.size() ? peer.qp_addresses[index].ip : peer.ip,
          .dest_qp_num = peer.qps[index].qpn,
          .rq_psn = peer.qps[index].first_psn,
          .sq_psn = path.first_psn,
          .path_mtu = std::min(mtu, peer.mtu),
          .access = rnic::Access::remote_write | rnic::Access::remote_read,
          .sgid_index = path.gid_index.value_or(config_.gid_index),
          .traffic_class = config_.data_traffic_class,
          .udp_sport = path.source_port,
          .timeout = rc_timeout,
          .retry_cnt = rc_retry_cnt});
}

std::unique_ptr<rnic::HostMemory> Endpoint::make_memory(uint64_t size) {
  const uint64_t base = next_memory_base_;
  next_memory_base_ += (size + 2 * kMemoryAlignment - 1) / kMemoryAlignment * kMemoryAlignment;
  if (config_.memory == MemoryKind::bytes) return std::make_unique<rnic::ByteMemory>(base, size);
  return std::make_unique<rnic::TokenMemory>(base, size);
}

uint32_t Endpoint::fresh_psn() {
  return static_cast<uint32_t>(random_.next_u64() & 0xFF'FFFF);
}

uint16_t Endpoint::fresh_source_port() {
  // The dynamic range 49152..65535, as RoCE NICs pick source ports for ECMP entropy.
  return static_cast<uint16_t>(random_.uniform_int(49152, 65535));
}

template <typename Encode>
bool Endpoint::post_ud(const ConnectionOffer& peer, Encode&& encode) {
  if (free_ack_send_slots_.empty()) {
    ++stats_.ack_slots_exhausted;
    return false;
  }
  const uint32_t slot = free_ack_send_slots_.back();
  free_ack_send_slots_.pop_back();
  world::Payload payload;
  payload.bytes.resize(kAckSlotBytes - kGrhBytes);
  payload.length = static_cast<uint32_t>(encode(std::span(payload.bytes)));
  payload.bytes.resize(payload.length);
  const uint64_t addr = ack_memory_->base() + uint64_t{slot} * kAckSlotBytes;
  ack_memory_->write(addr, payload);
  rnic::SendWr wr;
  wr.wr_id = slot;
  wr.opcode = rnic::WrOpcode::send;
  wr.sge = rnic::Sge{.addr = addr, .length = payload.length, .lkey = ack_region_->lkey};
  wr.ud = rnic::UdDestination{.ip = peer.ip,
                              .qp_num = peer.ud_qpn,
                              .qkey = peer.qkey,
                              .traffic_class = config_.ack_traffic_class};
  ud_qp_->post_send(wr);
  return true;
}

bool Endpoint::post_ack(const ConnectionOffer& peer, const SoftAck& ack) {
  return post_ud(peer, [&ack](std::span<std::byte> out) {
    const auto size = encode_soft_ack(ack, out);
    if (!size) throw Error("software ACK does not encode: {}", wire::describe(size.error));
    return size.value;
  });
}

bool Endpoint::post_control(const ConnectionOffer& peer, const ControlMessage& message) {
  return post_ud(peer, [&message](std::span<std::byte> out) {
    const auto size = encode_control_message(message, out);
    if (!size) throw Error("control message does not encode: {}", wire::describe(size.error));
    return size.value;
  });
}

bool Endpoint::post_ud_message(const ConnectionOffer& peer, std::span<const std::byte> message) {
  if (message.size() > kAckSlotBytes - kGrhBytes) {
    throw Error("a UD message of {} bytes; at most {}", message.size(), kAckSlotBytes - kGrhBytes);
  }
  return post_ud(peer, [message](std::span<std::byte> out) {
    std::copy(message.begin(), message.end(), out.begin());
    return message.size();
  });
}

void Endpoint::repost_ack_receive(uint64_t slot) {
  rnic::RecvWr wr;
  wr.wr_id = slot;
  wr.sge = rnic::Sge{.addr = ack_memory_->base() + slot * kAckSlotBytes,
                     .length = kAckSlotBytes,
                     .lkey = ack_region_->lkey};
  ud_qp_->post_recv(wr);
}

void Endpoint::schedule_poll() {
  if (poll_scheduled_) return;
  poll_scheduled_ = true;
  scheduler().at(scheduler().now(), [this] { poll(); });
}

void Endpoint::poll() {
  poll_scheduled_ = false;
  ++stats_.polls;
  if (config_.completion_cost > Time::zero()) {
    poll_one();
    return;
  }
  std::array<rnic::WorkCompletion, kPollBatch> batch;
  for (;;) {
    // ACKs first: their receive time is T4 of an RTT sample, and they open the window.
    const size_t acks = ack_cq_->poll(batch.size(), batch);
    for (size_t i = 0; i < acks; ++i) on_ack_completion(batch[i]);
    const size_t data = data_cq_->poll(batch.size(), batch);
    for (size_t i = 0; i < data; ++i) on_data_completion(batch[i]);
    if (acks == 0 && data == 0) return;
  }
}

void Endpoint::poll_one() {
  std::array<rnic::WorkCompletion, 1> one;
  if (ack_cq_->poll(1, one) == 1) {
    note_wait(one[0]);
    on_ack_completion(one[0]);
  } else if (data_cq_->poll(1, one) == 1) {
    note_wait(one[0]);
    on_data_completion(one[0]);
  } else {
    return;
  }
  // Busy with it for its cost; completions arriving meanwhile wait (schedule_poll sees the
  // poll already scheduled).
  poll_scheduled_ = true;
  scheduler().at(scheduler().now() + config_.completion_cost, [this] { poll(); });
}

void Endpoint::note_wait(const rnic::WorkCompletion& wc) {
  const bool receive =
      wc.opcode == rnic::WcOpcode::recv || wc.opcode == rnic::WcOpcode::recv_rdma_with_imm;
  if (!receive || wc.status != rnic::WcStatus::success) return;
  // Read off the NIC clock directly (no query cost): a measurement, not the transport's logic.
  const Time wait = std::max(Time::zero(), device_.hw_time() - wc.hw_timestamp);
  ++stats_.receive_completions;
  stats_.receive_wait_total += wait;
  stats_.receive_wait_max = std::max(stats_.receive_wait_max, wait);
}

void Endpoint::on_ack_completion(const rnic::WorkCompletion& wc) {
  if (wc.opcode == rnic::WcOpcode::send) {
    free_ack_send_slots_.push_back(static_cast<uint32_t>(wc.wr_id));
    return;
  }
  if (wc.status == rnic::WcStatus::success && wc.byte_len >= kGrhBytes) {
    std::array<std::byte, kAckSlotBytes - kGrhBytes> bytes;
    const uint32_t length = std::min<uint32_t>(wc.byte_len - kGrhBytes, bytes.size());
    ack_memory_->copy_out(ack_memory_->base() + wc.wr_id * kAckSlotBytes + kGrhBytes,
                          std::span(bytes).first(length));
    dispatch_ud(wc, std::span(bytes).first(length));
  }
  if (wc.status != rnic::WcStatus::flush_error) repost_ack_receive(wc.wr_id);
}

void Endpoint::dispatch_ud(const rnic::WorkCompletion& wc, std::span<const std::byte> bytes) {
  // Every protocol's UD message starts with the receiver's id for the connection.
  uint32_t id = 0;
  if (bytes.size() >= sizeof(id)) {
    for (size_t i = 0; i < sizeof(id); ++i) id = id << 8 | std::to_integer<uint32_t>(bytes[i]);
  }
  EndpointHandler* handler = id >= 1 && id <= handlers_.size() ? handlers_[id - 1] : nullptr;
  const UdVerdict verdict =
      handler != nullptr
          ? handler->on_ud_message(UdSource{.ip = wc.src_ip, .qp_num = wc.src_qp}, bytes,
                                   wc.hw_timestamp)
          : (is_control_message(bytes) ? UdVerdict::unroutable_control : UdVerdict::unroutable_ack);
  if (verdict == UdVerdict::unroutable_ack) ++stats_.acks_unroutable;
  if (verdict == UdVerdict::unroutable_control) ++stats_.controls_unroutable;
}

void Endpoint::on_data_completion(const rnic::WorkCompletion& wc) {
  const auto it = by_qpn_.find(wc.qp_num);
  if (it == by_qpn_.end()) return;
  if (wc.opcode == rnic::WcOpcode::recv || wc.opcode == rnic::WcOpcode::recv_rdma_with_imm) {
    it->second->on_receive_completion(wc);
  } else {
    it->second->on_send_completion(wc);
  }
}

}  // namespace bifrost::transport
