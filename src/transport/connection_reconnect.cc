// Background reconnect of a connection's QP (A.3), agreed in-band over the UD QP.
//
// The side that gives up a QP (the initiator) puts it in error, creates a fresh one with a new
// first PSN and UDP source port in its place, and asks the peer: "QP index i is now my QPN q,
// sending from PSN p". The peer does the same for its QP i (first moving its primary elsewhere
// if that was it), connects the fresh QP to q, posts its receives and replies with its own QPN
// and PSN; the initiator then connects its QP. Requests are repeated until a reply comes; the
// peer answers a repeated request with the same reply instead of replacing its QP again. If
// both sides ask for the same index at once, the side whose UD address is lower yields.
//
// Safe against stale completions because an endpoint's poll drains both CQs before any new
// packet is processed: the old QP's completions (flushed or not) are all handled before the
// fresh QP can receive into the same slots, and their slots are not reposted (receiver.cc).
#include <algorithm>

#include "bifrost/transport/connection.h"
#include "bifrost/transport/endpoint.h"
#include "receiver.h"
#include "sender.h"

namespace bifrost::transport {

namespace {

// Replaced QPs are kept (in error) this long, counted in later reconnects, before being
// destroyed, so no completion of theirs can name a QP number the device has reused.
constexpr size_t kRetiredQpsKept = 4;

}  // namespace

void Connection::replace_qp(size_t index, PathRole role) {
  rnic::QueuePair* old = qps_[index].qp;
  if (old->state() != rnic::QpState::err) {
    rnic::QpAttr attr;
    attr.state = rnic::QpState::err;
    old->modify(attr, rnic::QpAttrMask::state);  // flushes its queues into the CQ
  }
  retired_.push_back(old);
  if (retired_.size() > kRetiredQpsKept) {
    const uint32_t qpn = retired_.front()->qp_num();
    endpoint_.forget_qp(qpn);
    endpoint_.device().destroy_qp(qpn);
    retired_.erase(retired_.begin());
  }
  qps_[index] = fresh_qp(role);
}

void Connection::bring_up(size_t index, uint32_t peer_qpn, uint32_t peer_psn) {
  peer_->qps[index] = ConnectionOffer::Qp{.qpn = peer_qpn, .first_psn = peer_psn};
  connect_one(index);
  qps_[index].role = has_primary() ? PathRole::backup : PathRole::primary;
  receiver_->post_receives(index);
}

bool Connection::yields_to_peer() const {
  return std::pair(endpoint_.ip().value, endpoint_.ud_qpn()) <
         std::pair(peer_->ip.value, peer_->ud_qpn);
}

void Connection::begin_reconnect(size_t index) {
  Reconnect& r = reconnects_[index];
  if (r.pending) return;
  replace_qp(index, PathRole::reconnecting);
  r.pending = true;
  r.sequence = next_sequence_++;
  r.attempts = 0;
  r.started = endpoint_.scheduler().now();
  ++stats_.reconnects_started;
  send_reconnect_request(index);
}

void Connection::send_reconnect_request(size_t index) {
  Reconnect& r = reconnects_[index];
  r.retry = {};
  if (r.attempts == config_.reconnect_attempts) {
    r.pending = false;
    qps_[index].role = PathRole::failed;
    ++stats_.reconnects_abandoned;
    sender_->on_qps_changed();  // with no QP left, every message fails
    return;
  }
  ++r.attempts;
  ++stats_.requests_sent;
  endpoint_.post_control(*peer_, ControlMessage{.connection = peer_->connection_id,
                                                .kind = ControlKind::reconnect_request,
                                                .qp_index = static_cast<uint16_t>(index),
                                                .sequence = r.sequence,
                                                .qpn = qps_[index].qp->qp_num(),
                                                .psn = qps_[index].first_psn});
  r.retry = endpoint_.scheduler().after(config_.reconnect_interval,
                                        [this, index] { send_reconnect_request(index); });
}

void Connection::on_reconnect_control(const ControlMessage& message) {
  if (message.qp_index >= qps_.size()) {
    ++stats_.controls_ignored;
    return;
  }
  if (message.kind == ControlKind::reconnect_request) {
    on_reconnect_request(message);
  } else {
    on_reconnect_reply(message);
  }
}

void Connection::on_reconnect_request(const ControlMessage& request) {
  const size_t index = request.qp_index;
  Reconnect& r = reconnects_[index];
  if (r.answered && r.reply.sequence == request.sequence) {
    ++stats_.replies_sent;  // our reply was lost: the same answer again
    endpoint_.post_control(*peer_, r.reply);
    return;
  }
  if (r.pending) {
    // Both sides gave up this QP at once: one request must win.
    if (!yields_to_peer()) {
      ++stats_.controls_ignored;
      return;
    }
    endpoint_.scheduler().cancel(r.retry);
    r.retry = {};
    r.pending = false;  // our fresh QP (still in reset) answers the peer's request instead
    ++stats_.reconnects_done;
    stats_.last_reconnect_time = endpoint_.scheduler().now() - r.started;
  } else {
    const bool was_primary = qps_[index].role == PathRole::primary;
    if (was_primary) qps_[index].role = PathRole::reconnecting;
    const bool promoted = was_primary && promote_backup_after(index);
    replace_qp(index, PathRole::reconnecting);
    if (was_primary) sender_->on_primary_taken(promoted);
  }
  bring_up(index, request.qpn, request.psn);
  ++stats_.reconnects_accepted;
  r.answered = true;
  r.reply = ControlMessage{.connection = peer_->connection_id,
                           .kind = ControlKind::reconnect_reply,
                           .qp_index = request.qp_index,
                           .sequence = request.sequence,
                           .qpn = qps_[index].qp->qp_num(),
                           .psn = qps_[index].first_psn};
  ++stats_.replies_sent;
  endpoint_.post_control(*peer_, r.reply);
  sender_->on_qps_changed();
}

void Connection::on_reconnect_reply(const ControlMessage& reply) {
  const size_t index = reply.qp_index;
  Reconnect& r = reconnects_[index];
  if (!r.pending || reply.sequence != r.sequence) {
    ++stats_.controls_ignored;  // a repeat of a reply already used, or for an abandoned request
    return;
  }
  endpoint_.scheduler().cancel(r.retry);
  r.retry = {};
  r.pending = false;
  bring_up(index, reply.qpn, reply.psn);
  ++stats_.reconnects_done;
  stats_.last_reconnect_time = endpoint_.scheduler().now() - r.started;
  sender_->on_qps_changed();
}

}  // namespace bifrost::transport
