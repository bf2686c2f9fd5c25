#include "bifrost/transport/path_resync.h"

namespace bifrost::transport {

PathResync::PathResync(PathResyncOwner& owner, world::Scheduler& scheduler, ResyncStats& stats,
                       Time interval, uint32_t attempts)
    : owner_(owner),
      scheduler_(scheduler),
      stats_(stats),
      interval_(interval),
      attempts_(attempts) {}

PathResync::~PathResync() {
  for (State& s : state_) {
    if (s.retry.valid()) scheduler_.cancel(s.retry);
  }
}

void PathResync::resize(size_t paths) {
  state_.resize(paths);
}

void PathResync::begin(size_t index) {
  State& s = state_[index];
  if (s.pending) return;
  owner_.replace_path(index);
  s.pending = true;
  s.sequence = next_sequence();
  s.attempts = 0;
  s.started = scheduler_.now();
  ++stats_.reconnects_started;
  send_request(index);
}

void PathResync::send_request(size_t index) {
  State& s = state_[index];
  s.retry = {};
  if (s.attempts == attempts_) {
    s.pending = false;
    ++stats_.reconnects_abandoned;
    owner_.on_resync_end(index, false);
    return;
  }
  ++s.attempts;
  ++stats_.requests_sent;
  owner_.post_control(ControlMessage{.connection = owner_.peer_connection_id(),
                                     .kind = ControlKind::reconnect_request,
                                     .qp_index = static_cast<uint16_t>(index),
                                     .sequence = s.sequence,
                                     .qpn = owner_.path_qpn(index),
                                     .psn = owner_.path_psn(index)});
  s.retry = scheduler_.after(interval_, [this, index] { send_request(index); });
}

void PathResync::on_control(const ControlMessage& message) {
  if (message.qp_index >= state_.size()) {
    ++stats_.controls_ignored;
    return;
  }
  if (message.kind == ControlKind::reconnect_request) {
    on_request(message);
  } else {
    on_reply(message);
  }
}

void PathResync::finish(State& s) {
  scheduler_.cancel(s.retry);
  s.retry = {};
  s.pending = false;
  ++stats_.reconnects_done;
  stats_.last_reconnect_time = scheduler_.now() - s.started;
}

void PathResync::on_request(const ControlMessage& request) {
  const size_t index = request.qp_index;
  State& s = state_[index];
  if (s.answered && s.reply.sequence == request.sequence) {
    ++stats_.replies_sent;  // our reply was lost: the same answer again
    owner_.post_control(s.reply);
    return;
  }
  if (s.pending) {
    // Both sides gave up this path at once: one request must win.
    if (!owner_.yields_to_peer()) {
      ++stats_.controls_ignored;
      return;
    }
    finish(s);  // our fresh QP (still in reset) answers the peer's request instead
  } else {
    owner_.on_path_taken(index);
  }
  owner_.bring_up_path(index, request.qpn, request.psn);
  ++stats_.reconnects_accepted;
  s.answered = true;
  s.reply = ControlMessage{.connection = owner_.peer_connection_id(),
                           .kind = ControlKind::reconnect_reply,
                           .qp_index = request.qp_index,
                           .sequence = request.sequence,
                           .qpn = owner_.path_qpn(index),
                           .psn = owner_.path_psn(index)};
  ++stats_.replies_sent;
  owner_.post_control(s.reply);
  owner_.on_resync_end(index, true);
}

void PathResync::on_reply(const ControlMessage& reply) {
  const size_t index = reply.qp_index;
  State& s = state_[index];
  if (!s.pending || reply.sequence != s.sequence) {
    ++stats_.controls_ignored;  // a repeat of a reply already used, or for an abandoned request
    return;
  }
  finish(s);
  owner_.bring_up_path(index, reply.qpn, reply.psn);
  owner_.on_resync_end(index, true);
}

}  // namespace bifrost::transport
