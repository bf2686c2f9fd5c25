// Background reconnect of a connection's QP (A.3): the QP work of the resync protocol that
// path_resync.h runs in-band over the UD QP.
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

void Connection::replace_qp(size_t index, PathRole role) {
  if (recovering_[index].valid()) {
    endpoint_.scheduler().cancel(recovering_[index]);  // the QP that was recovering is gone
    recovering_[index] = {};
  }
  retired_.retire(endpoint_, *qps_[index].qp);
  qps_[index] = fresh_qp(role);
}

void Connection::bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) {
  peer_->qps[index] = ConnectionOffer::Qp{.qpn = peer_qpn, .first_psn = peer_psn};
  connect_one(index);
  receiver_->post_receives(index);
}

bool Connection::yields_to_peer() const {
  return std::pair(endpoint_.ip().value, endpoint_.ud_qpn()) <
         std::pair(peer_->ip.value, peer_->ud_qpn);
}

void Connection::on_path_taken(size_t index) {
  const bool was_primary = qps_[index].role == PathRole::primary;
  if (was_primary) qps_[index].role = PathRole::reconnecting;
  const bool promoted = was_primary && promote_backup_after(index);
  replace_qp(index, PathRole::reconnecting);
  if (was_primary) sender_->on_primary_taken(promoted);
}

void Connection::on_resync_end(size_t index, bool ok) {
  if (ok) {
    // The fresh QP goes from RESET to RTS before it carries anything: the paper's "e.g., 5ms"
    // (§3.4.2), QpTransitionCosts::recover. Until then it is still reconnecting, so a sender
    // with no other QP waits for it.
    recovering_[index] = endpoint_.scheduler().after(
        endpoint_.device().qp_transition_costs().recover, [this, index] {
          recovering_[index] = {};
          on_path_ready(index);
        });
    return;
  }
  qps_[index].role = PathRole::failed;
  sender_->on_qps_changed();  // post on the primary, or fail every message if none is left
}

void Connection::on_path_ready(size_t index) {
  if (qps_[index].role != PathRole::reconnecting) return;
  qps_[index].role = has_primary() ? PathRole::backup : PathRole::primary;
  sender_->on_qps_changed();  // post on the new primary (its recovery was the cost paid)
}

bool Connection::post_control(const ControlMessage& message) {
  return endpoint_.post_control(*peer_, message);
}

uint32_t Connection::peer_connection_id() const {
  return peer_->connection_id;
}

}  // namespace bifrost::transport
