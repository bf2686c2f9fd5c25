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
    : endpoint_(endpoint), id_(id), config_(config) {
  config_.validate();
  create_qps();
  sender_ = std::make_unique<Sender>(*this, endpoint, config_);
  receiver_ = std::make_unique<Receiver>(*this, endpoint, config_, *sender_);
}

Connection::~Connection() = default;

void Connection::create_qps() {
  const rnic::QpType type =
      config_.reliability == Reliability::hardware_rc ? rnic::QpType::rc : rnic::QpType::uc;
  for (uint32_t i = 0; i <= config_.backup_qps; ++i) {
    rnic::QueuePair& qp = endpoint_.device().create_qp(endpoint_.pd(), type, endpoint_.data_cq(),
                                                       endpoint_.data_cq());
    qps_.push_back(ConnectionQp{.qp = &qp,
                                .role = i == 0 ? QpRole::primary : QpRole::backup,
                                .first_psn = endpoint_.fresh_psn(),
                                .source_port = endpoint_.fresh_source_port()});
  }
}

void Connection::attach_peer(const ConnectionOffer& peer) {
  if (peer_) throw Error("connection {} is already connected", id_);
  const EndpointConfig& e = endpoint_.config();
  for (size_t i = 0; i < qps_.size(); ++i) {
    rnic::connect_qp(*qps_[i].qp, rnic::QpConnection{.dest_ip = peer.ip,
                                                     .dest_qp_num = peer.qps[i].qpn,
                                                     .rq_psn = peer.qps[i].first_psn,
                                                     .sq_psn = qps_[i].first_psn,
                                                     .path_mtu = std::min(config_.mtu, peer.mtu),
                                                     .access = rnic::Access::remote_write,
                                                     .sgid_index = e.gid_index,
                                                     .traffic_class = e.data_traffic_class,
                                                     .udp_sport = qps_[i].source_port,
                                                     .timeout = config_.rc_timeout,
                                                     .retry_cnt = config_.rc_retry_cnt});
  }
  peer_ = std::make_unique<ConnectionOffer>(peer);
  receiver_->start();
  sender_->start();
}

rnic::QueuePair& Connection::primary() {
  for (ConnectionQp& q : qps_) {
    if (q.role == QpRole::primary) return *q.qp;
  }
  throw Error("connection {} has no primary QP", id_);
}

bool Connection::fail_over() {
  const auto primary = std::find_if(
      qps_.begin(), qps_.end(), [](const ConnectionQp& q) { return q.role == QpRole::primary; });
  // The next backup after the primary, round the set: a UC QP keeps no connection state, so a
  // UC primary that lost its path joins the end of the rotation; a failed RC QP is in error.
  for (size_t step = 1; step < qps_.size(); ++step) {
    ConnectionQp& next = qps_[(static_cast<size_t>(primary - qps_.begin()) + step) % qps_.size()];
    if (next.role != QpRole::backup) continue;
    primary->role = primary->qp->state() == rnic::QpState::err ? QpRole::failed : QpRole::backup;
    next.role = QpRole::primary;
    return true;
  }
  return false;
}

uint64_t Connection::send(const MessageBuffer& message, SendCallback done) {
  return sender_->send(message, std::move(done));
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
const RttEstimator& Connection::rtt() const {
  return sender_->rtt();
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

}  // namespace bifrost::transport
