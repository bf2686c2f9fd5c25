// RoGUE's recovery over RC (§3.5): retry count 1, and when the NIC gives up a QP, its shadow QP
// takes over in the same scheduler turn. The RNIC does not say how much of a verb arrived, so
// every segment still in the failed QP's window goes again whole on the shadow. The failed QP
// is resynchronised with the peer in the background (path_resync.h, over the UD QP) and, after
// the NIC's QP recovery cost, becomes the next shadow.
//
// A whole-segment resend can deliver a SEND or WRITE_WITH_IMM twice (it arrived, its ACK did
// not). The takeover notice tells the peer's library which receive-consuming message the new QP
// carries first, counted in order over the connection; the library drops what it already
// delivered (rogue_receiver.cc).
//
// If the shadow fails too before the resync finishes, nothing is lost: the segments wait
// (waiting_) until a resynchronised QP is ready and go there.
#include <algorithm>

#include "batch_window.h"
#include "bifrost/core/error.h"
#include "bifrost/transport/rogue/rogue_connection.h"
#include "rogue_receiver.h"

namespace bifrost::transport::rogue {

size_t RogueConnection::path_index(const rnic::QueuePair& qp) const {
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i].qp == &qp) return i;
  }
  throw Error("rogue connection {}: QP {} is not one of its paths", id_, qp.qp_num());
}

std::optional<size_t> RogueConnection::path_with_role(PathRole role) const {
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i].role == role) return i;
  }
  return std::nullopt;
}

void RogueConnection::take_over() {
  const std::optional<size_t> failed = path_with_role(PathRole::primary);
  if (!failed) return;
  switch_to_shadow(*failed);
  resync_.begin(*failed);
}

void RogueConnection::switch_to_shadow(size_t failed) {
  paths_[failed].role = PathRole::reconnecting;
  std::vector<Segment> again;
  posted_.take_all([&again](const Segment& s) { again.push_back(s); });
  write_window_->forget_batches();
  if (read_window_) read_window_->forget_batches();
  const std::optional<size_t> shadow = path_with_role(PathRole::shadow);
  if (shadow) {
    paths_[*shadow].role = PathRole::primary;
    ++stats_.shadow_switches;
    write_window_->reapply_rate();
    if (read_window_) read_window_->reapply_rate();
    send_takeover_notice(*shadow);
    resend(again);
  } else {
    waiting_.insert(waiting_.end(), again.begin(), again.end());
  }
}

void RogueConnection::resend(const std::vector<Segment>& segments) {
  // Each original batch goes again as a batch of its own, signalled at its old end.
  BatchWindow* open = nullptr;
  for (const Segment& s : segments) {
    if (s.tag_only) continue;  // UC only: no takeover there
    Verb* v = find_verb(s.verb);
    if (v == nullptr) continue;
    BatchWindow& window = window_of(v->work.op);
    if (open != &window) {
      if (open != nullptr) open->close_batch();
      window.open_batch(read_nic_clock());  // a takeover goes in this turn: not delayed
      open = &window;
    }
    const bool app_imm = s.last_of_verb && v->work.imm.has_value();
    const rnic::SendWr wr =
        segment_wr(*v, s.offset, s.bytes, s.closes_batch || (s.last_of_verb && v->work.signaled),
                   app_imm ? v->work.imm : std::nullopt);
    Segment again = s;
    again.batch = window.current_batch();
    post_wqe(wr, again);
    window.add_bytes(s.bytes, verb_wire_bytes(rnic::QpType::rc, wr.opcode, s.bytes, config_.mtu),
                     verb_packets(wr.opcode, s.bytes, config_.mtu));
    ++stats_.resent_segments;
    if (s.closes_batch) {
      window.close_batch();
      open = nullptr;
    }
  }
  if (open != nullptr) open->close_batch();
}

void RogueConnection::send_takeover_notice(size_t index) {
  if (notice_) endpoint_.scheduler().cancel(notice_->retry);
  TakeoverNotice notice;
  notice.message = ControlMessage{.connection = peer_->connection_id,
                                  .kind = ControlKind::takeover,
                                  .qp_index = static_cast<uint16_t>(index),
                                  .sequence = resync_.next_sequence(),
                                  .value = receives_done_};
  notice_ = notice;
  repeat_takeover_notice();
}

void RogueConnection::repeat_takeover_notice() {
  notice_->retry = {};
  if (notice_->attempts == config_.resync_attempts) {
    notice_.reset();  // the peer's library holds the new QP's receives until a notice comes
    return;
  }
  ++notice_->attempts;
  endpoint_.post_control(*peer_, notice_->message);
  notice_->retry =
      endpoint_.scheduler().after(config_.resync_interval, [this] { repeat_takeover_notice(); });
}

void RogueConnection::replace_path(size_t index) {
  retired_.retire(endpoint_, *paths_[index].qp);
  paths_[index] = fresh_path(PathRole::reconnecting);
}

void RogueConnection::bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) {
  peer_->qps[index] = ConnectionOffer::Qp{.qpn = peer_qpn, .first_psn = peer_psn};
  connect_path(index);
  receiver_->post_receives(*paths_[index].qp);
}

void RogueConnection::on_path_taken(size_t index) {
  // The peer gave up its side of this path: ours is useless too. If it was carrying data, the
  // shadow takes over as if our NIC had failed it (the peer's resync replaces the QP).
  if (paths_[index].role == PathRole::primary) switch_to_shadow(index);
  replace_path(index);
}

void RogueConnection::on_resync_end(size_t index, bool ok) {
  if (!ok) {
    paths_[index].role = PathRole::failed;
    if (!path_with_role(PathRole::primary)) {
      // No QP left: every verb fails.
      for (Verb& v : verbs_) {
        if (!v.finished) finish_verb(v, Status::failed);
      }
      waiting_.clear();
      pop_finished_verbs();
    }
    return;
  }
  ++stats_.resyncs;
  // The NIC needs its QP recovery time before the fresh QP carries anything.
  const Time cost = endpoint_.device().qp_transition_costs().recover;
  endpoint_.scheduler().after(cost, [this, index] { on_path_ready(index); });
}

void RogueConnection::on_path_ready(size_t index) {
  if (index >= paths_.size() || paths_[index].role != PathRole::reconnecting) return;
  if (path_with_role(PathRole::primary)) {
    paths_[index].role = PathRole::shadow;
    return;
  }
  paths_[index].role = PathRole::primary;
  write_window_->reapply_rate();
  if (read_window_) read_window_->reapply_rate();
  send_takeover_notice(index);
  std::vector<Segment> again;
  again.swap(waiting_);
  resend(again);
  pump();
}

bool RogueConnection::post_control(const ControlMessage& message) {
  return endpoint_.post_control(*peer_, message);
}

bool RogueConnection::yields_to_peer() const {
  return std::pair(endpoint_.ip().value, endpoint_.ud_qpn()) <
         std::pair(peer_->ip.value, peer_->ud_qpn);
}

}  // namespace bifrost::transport::rogue
