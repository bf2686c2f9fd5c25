// A connection's QP set (connection management) and the dispatch to its two halves.
#include "bifrost/transport/connection.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/transport/endpoint.h"
#include "receiver.h"
#include "sender.h"

namespace bifrost::transport {

Connection::Connection(Endpoint& endpoint, uint32_t id, const TransportConfig& config)
    : endpoint_(endpoint),
      id_(id),
      config_(config),
      resync_(*this, endpoint.scheduler(), stats_, config.reconnect_interval,
              config.reconnect_attempts) {
  config_.validate();
  create_qps();
  sender_ = std::make_unique<Sender>(*this, endpoint, config_);
  receiver_ = std::make_unique<Receiver>(*this, endpoint, config_, *sender_);
}

Connection::~Connection() {
  for (const world::TimerId timer : recovering_) {
    if (timer.valid()) endpoint_.scheduler().cancel(timer);
  }
  for (auto& [sequence, request] : parameter_requests_) {
    if (request.retry.valid()) endpoint_.scheduler().cancel(request.retry);
  }
}

Path Connection::fresh_qp(PathRole role) {
  const rnic::QpType type =
      config_.reliability == Reliability::hardware_rc ? rnic::QpType::rc : rnic::QpType::uc;
  rnic::QueuePair& qp =
      endpoint_.device().create_qp(endpoint_.pd(), type, endpoint_.data_cq(), endpoint_.data_cq());
  endpoint_.register_qp(qp.qp_num(), *this);
  return Path{.qp = &qp,
              .role = role,
              .first_psn = endpoint_.fresh_psn(),
              .source_port = endpoint_.fresh_source_port(),
              .gid_index = std::nullopt};
}

void Connection::create_qps() {
  for (uint32_t i = 0; i <= config_.backup_qps; ++i) {
    qps_.push_back(fresh_qp(i == 0 ? PathRole::primary : PathRole::backup));
  }
  recovering_.resize(qps_.size());
  resync_.resize(qps_.size());
}

void Connection::connect_one(size_t index) {
  endpoint_.connect_path(qps_[index], *peer_, index, config_.mtu, config_.rc_timeout,
                         config_.rc_retry_cnt);
}

void Connection::attach_peer(const ConnectionOffer& peer) {
  if (peer_) throw Error("connection {} is already connected", id_);
  peer_ = std::make_unique<ConnectionOffer>(peer);
  for (size_t i = 0; i < qps_.size(); ++i) connect_one(i);
  receiver_->start();
  sender_->start();
}

bool Connection::has_primary() const {
  return std::any_of(qps_.begin(), qps_.end(),
                     [](const Path& q) { return q.role == PathRole::primary; });
}

rnic::QueuePair& Connection::primary() {
  for (Path& q : qps_) {
    if (q.role == PathRole::primary) return *q.qp;
  }
  throw Error("connection {} has no primary QP", id_);
}

bool Connection::reconnecting() const {
  return std::any_of(qps_.begin(), qps_.end(),
                     [](const Path& q) { return q.role == PathRole::reconnecting; });
}

bool Connection::promote_backup_after(size_t index) {
  for (size_t step = 1; step < qps_.size(); ++step) {
    Path& next = qps_[(index + step) % qps_.size()];
    if (next.role != PathRole::backup) continue;
    next.role = PathRole::primary;
    // Moving traffic to a connected backup is not free (§3.4.2: "~60 us").
    primary_ready_at_ =
        endpoint_.scheduler().now() + endpoint_.device().qp_transition_costs().activate_ready;
    return true;
  }
  return false;
}

bool Connection::fail_over() {
  const auto primary = std::find_if(qps_.begin(), qps_.end(),
                                    [](const Path& q) { return q.role == PathRole::primary; });
  if (primary == qps_.end()) return false;
  const auto index = static_cast<size_t>(primary - qps_.begin());
  if (config_.reconnect) {
    primary->role = PathRole::reconnecting;
    const bool promoted = promote_backup_after(index);
    resync_.begin(index);
    return promoted;
  }
  // Without reconnects a UC QP, which keeps no connection state, rejoins the end of the
  // rotation; a failed RC QP is in error for good.
  if (!promote_backup_after(index)) return false;
  primary->role = primary->qp->state() == rnic::QpState::err ? PathRole::failed : PathRole::backup;
  return true;
}

uint64_t Connection::send(const MessageBuffer& message, SendCallback done) {
  return sender_->send(message, std::move(done));
}

void Connection::set_rtt_observer(RttObserver observer) {
  sender_->set_rtt_observer(std::move(observer));
}

void Connection::set_ack_delay_observer(AckDelayObserver observer) {
  sender_->set_ack_delay_observer(std::move(observer));
}

uint64_t Connection::write(const MessageBuffer& local, RemoteAddress remote, SendCallback done) {
  return sender_->write(local, remote, std::move(done));
}

uint64_t Connection::read(const MessageBuffer& local, RemoteAddress remote, SendCallback done) {
  return sender_->read(local, remote, std::move(done));
}

void Connection::set_delivery_handler(DeliveryHandler handler) {
  receiver_->set_handler(std::move(handler));
}

bool Connection::idle() const {
  return sender_->idle() && receiver_->idle();
}
const SenderStats& Connection::sender_stats() const {
  return sender_->stats();
}
const ReceiverStats& Connection::receiver_stats() const {
  return receiver_->stats();
}
uint64_t Connection::window_bytes() const {
  return sender_->window_bytes();
}
std::optional<Rate> Connection::pacing_rate() const {
  return sender_->pacing_rate();
}
const RttEstimator& Connection::rtt() const {
  return sender_->rtt();
}
double Connection::loss_rate_estimate() const {
  return sender_->loss_rate_estimate();
}

void Connection::on_send_completion(const rnic::WorkCompletion& wc) {
  sender_->on_send_completion(wc);
}
void Connection::on_receive_completion(const rnic::WorkCompletion& wc) {
  receiver_->on_completion(wc);
}
void Connection::on_ack(const SoftAck& ack, Time ack_received_nic_time) {
  sender_->on_ack(ack, ack_received_nic_time);
}

UdVerdict Connection::on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                                    Time nic_time) {
  // Only the peer may acknowledge this connection's WQEs or ask to reconnect its QPs.
  const bool from_peer = connected() && peer_->ip == from.ip && peer_->ud_qpn == from.qp_num;
  if (is_control_message(bytes)) {
    const auto message = decode_control_message(bytes);
    if (!from_peer || !message) return UdVerdict::unroutable_control;
    on_control(message.value);
    return UdVerdict::accepted;
  }
  const auto ack = decode_soft_ack(bytes);
  if (!from_peer || !ack) return UdVerdict::unroutable_ack;
  on_ack(ack.value, nic_time);
  return UdVerdict::accepted;
}

void Connection::on_control(const ControlMessage& message) {
  switch (message.kind) {
    case ControlKind::reconnect_request:
    case ControlKind::reconnect_reply:
      resync_.on_control(message);
      break;
    case ControlKind::parameter_set:
      on_parameter_set(message);
      break;
    case ControlKind::parameter_ack:
      on_parameter_ack(message);
      break;
    case ControlKind::set_rate:
    case ControlKind::takeover:
    case ControlKind::takeover_ack:
      ++stats_.controls_ignored;  // RoGUE's path actions: no Bifröst peer sends them
      break;
  }
}

}  // namespace bifrost::transport
