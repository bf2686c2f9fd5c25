// Same-path QP recovery (§3.5 with RETRY_EXC): a path whose QP failed keeps its identity. Its
// QP goes ERR -> RESET on both sides (same QPN, same alias pair, same UDP source port, so the
// same route), the two sides agree on fresh first PSNs over the UD channel (PathResync: the
// request carries this side's QPN and PSN, the reply the peer's), each connects RESET -> INIT
// -> RTR -> RTS, and the path carries traffic again after the NIC's modelled recovery cost
// (rnic::QpTransitionCosts::recover). The failed WR and every WR flushed with it go again on
// the same path. Bifröst's reconnect moves a path (new QP, new port); this one must not.
#include <algorithm>

#include "bifrost/transport/virtuoso/mp_connection.h"
#include "reassembler.h"

namespace bifrost::transport::virtuoso {

void MpConnection::on_path_failed(uint32_t path) {
  PathState& s = state_[path];
  if (s.path.role != PathRole::active) return;  // already being recovered
  s.ready = false;
  s.path.role = PathRole::reconnecting;
  ++stats_.recoveries;
  resync_.begin(path);
}

void MpConnection::requeue_posted(uint32_t path) {
  std::vector<uint64_t> ids;
  for (const auto& [wr_id, posted] : posted_) {
    if (posted.path == path) ids.push_back(wr_id);
  }
  std::sort(ids.rbegin(), ids.rend());  // pushed to the front newest first: oldest ends first
  for (uint64_t wr_id : ids) {
    requeue(posted_.at(wr_id));
    posted_.erase(wr_id);
    ++stats_.wrs_reposted;
  }
  state_[path].in_flight = 0;
}

void MpConnection::replace_path(size_t index) {
  PathState& s = state_[index];
  rnic::QueuePair& qp = *s.path.qp;
  if (qp.state() != rnic::QpState::err) qp.enter_error();
  requeue_posted(static_cast<uint32_t>(index));
  reassembler_->forget_path(static_cast<uint32_t>(index));
  rnic::QpAttr reset;
  reset.state = rnic::QpState::reset;
  qp.modify(reset, rnic::QpAttrMask::state);
  s.path.first_psn = endpoint_.fresh_psn();  // gid_index and source_port stay
}

void MpConnection::bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) {
  peer_->connection.qps[index].qpn = peer_qpn;
  peer_->connection.qps[index].first_psn = peer_psn;
  connect_path(index);
  reassembler_->post_receives(static_cast<uint32_t>(index));
}

void MpConnection::on_path_taken(size_t index) {
  // The peer gave up its side of this path: ours goes through RESET too.
  PathState& s = state_[index];
  s.ready = false;
  s.path.role = PathRole::reconnecting;
  ++stats_.recoveries;
  replace_path(index);
}

void MpConnection::on_resync_end(size_t index, bool ok) {
  if (!ok) {
    // The peer never answered: the path is given up, its queue moves to the paths left.
    PathState& dead = state_[index];
    dead.path.role = PathRole::failed;
    for (uint32_t p = 0; p < path_count(); ++p) {
      if (state_[p].path.role == PathRole::active) {
        for (const Range& r : dead.queue) state_[p].queue.push_back(r);
        dead.queue.clear();
        break;
      }
    }
    for (const Range& r : dead.queue) {
      open_.at(r.mp).failed = true;
      drop_queued(r.mp);
    }
    schedule_pump();
    return;
  }
  const Time cost = endpoint_.device().qp_transition_costs().recover;
  ready_timer_[index] = endpoint_.scheduler().after(cost, [this, index] { on_path_ready(index); });
}

void MpConnection::on_path_ready(size_t index) {
  ready_timer_[index] = {};
  if (index >= state_.size() || state_[index].path.role != PathRole::reconnecting) return;
  state_[index].ready = true;
  state_[index].path.role = PathRole::active;
  pace_path(index);  // a reset QP may have lost its limit
  schedule_pump();
}

bool MpConnection::post_control(const ControlMessage& message) {
  return endpoint_.post_control(peer_->connection, message);
}

bool MpConnection::yields_to_peer() const {
  return std::pair(endpoint_.ip().value, endpoint_.ud_qpn()) <
         std::pair(peer_->connection.ip.value, peer_->connection.ud_qpn);
}

}  // namespace bifrost::transport::virtuoso
