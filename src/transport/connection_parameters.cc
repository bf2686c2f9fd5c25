// Remote parameters: one side sets a value on the peer's side of the connection, agreed in-band
// by parameter_set / parameter_ack control messages on the UD QP (docs/transport.md "Remote
// parameters").
//
// The UD QP loses messages, so a request is repeated every reconnect_interval until its ack
// comes, at most reconnect_attempts times. The peer applies a request once: it remembers, per
// parameter, its answer to the newest request, sends that answer again for a repeat, and
// ignores anything older (a late copy of a request since superseded). That is sound because
// this side sends one request per parameter at a time, with increasing sequence numbers.
#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/transport/endpoint.h"
#include "receiver.h"
#include "sender.h"

namespace bifrost::transport {

void Connection::set_remote_parameter(RemoteParameter parameter, uint64_t value,
                                      ParameterCallback done) {
  if (!connected()) throw Error("connection {}: set_remote_parameter before connect", id_);
  if (!is_remote_parameter(static_cast<uint16_t>(parameter))) {
    throw Error("connection {}: unknown remote parameter {}", id_,
                static_cast<uint16_t>(parameter));
  }
  const bool queued_behind =
      std::any_of(parameter_requests_.begin(), parameter_requests_.end(),
                  [parameter](const auto& entry) { return entry.second.parameter == parameter; });
  const uint32_t sequence = resync_.next_sequence();
  parameter_requests_.emplace(
      sequence, ParameterRequest{.parameter = parameter, .value = value, .done = std::move(done)});
  if (!queued_behind) send_parameter_request(sequence);
}

void Connection::send_parameter_request(uint32_t sequence) {
  const auto it = parameter_requests_.find(sequence);
  ParameterRequest& r = it->second;
  r.retry = {};
  if (r.attempts == config_.reconnect_attempts) {
    ++stats_.parameters_timed_out;
    finish_parameter_request(it, ParameterStatus::timed_out);
    return;
  }
  ++r.attempts;
  r.sent = true;
  ++stats_.parameter_requests_sent;
  endpoint_.post_control(*peer_, ControlMessage{.connection = peer_->connection_id,
                                                .kind = ControlKind::parameter_set,
                                                .sequence = sequence,
                                                .parameter = r.parameter,
                                                .value = r.value});
  r.retry = endpoint_.scheduler().after(config_.reconnect_interval,
                                        [this, sequence] { send_parameter_request(sequence); });
}

void Connection::finish_parameter_request(ParameterRequests::iterator request,
                                          ParameterStatus status) {
  if (request->second.retry.valid()) endpoint_.scheduler().cancel(request->second.retry);
  const RemoteParameter parameter = request->second.parameter;
  ParameterCallback done = std::move(request->second.done);
  const auto later = parameter_requests_.erase(request);
  const auto next = std::find_if(later, parameter_requests_.end(), [parameter](const auto& entry) {
    return entry.second.parameter == parameter;
  });
  if (next != parameter_requests_.end()) send_parameter_request(next->first);
  // Last: `done` may make new requests.
  if (done) done(status);
}

void Connection::on_parameter_ack(const ControlMessage& ack) {
  const auto it = parameter_requests_.find(ack.sequence);
  if (it == parameter_requests_.end() || !it->second.sent ||
      it->second.parameter != ack.parameter) {
    ++stats_.stale_parameter_acks;  // a repeat of an ack already used, or after a time-out
    return;
  }
  ++(ack.status == ParameterStatus::applied ? stats_.parameters_applied
                                            : stats_.parameters_refused);
  finish_parameter_request(it, ack.status);
}

void Connection::on_parameter_set(const ControlMessage& request) {
  const auto answered = parameter_answers_.find(request.parameter);
  if (answered != parameter_answers_.end()) {
    if (request.sequence == answered->second.sequence) {
      ++stats_.parameter_requests_repeated;  // our ack was lost: the same answer, not applied again
      ++stats_.parameter_acks_sent;
      endpoint_.post_control(*peer_, answered->second);
      return;
    }
    if (request.sequence < answered->second.sequence) {
      ++stats_.stale_parameter_requests;
      return;
    }
  }
  const bool valid = !apply_remote_parameter(config_, request.parameter, request.value);
  if (valid) use_parameter(request.parameter);
  ++(valid ? stats_.peer_parameters_applied : stats_.peer_parameters_refused);
  const ControlMessage ack{.connection = peer_->connection_id,
                           .kind = ControlKind::parameter_ack,
                           .sequence = request.sequence,
                           .parameter = request.parameter,
                           .status = valid ? ParameterStatus::applied : ParameterStatus::refused};
  parameter_answers_.insert_or_assign(request.parameter, ack);
  ++stats_.parameter_acks_sent;
  endpoint_.post_control(*peer_, ack);
}

void Connection::use_parameter(RemoteParameter parameter) {
  switch (parameter) {
    case RemoteParameter::ack_every_wqes:
    case RemoteParameter::ack_every_bytes:
    case RemoteParameter::ack_timer_ns:
      receiver_->set_ack_coalescing(
          AckCoalescing{.wqes = config_.ack_every_wqes, .bytes = config_.ack_every_bytes},
          config_.ack_timer);
      break;
    case RemoteParameter::max_chunk:
      sender_->set_max_chunk(config_.max_chunk);
      break;
  }
}

}  // namespace bifrost::transport
