#include "rogue_receiver.h"

#include "bifrost/core/error.h"
#include "bifrost/transport/wire/rogue_imm.h"

namespace bifrost::transport::rogue {

RogueReceiver::RogueReceiver(RogueConnection& connection, const RogueConfig& config,
                             RogueStats& stats)
    : connection_(connection), config_(config), stats_(stats) {
  Endpoint& e = connection_.endpoint();
  const uint64_t slots = uint64_t{config_.receive_slots} * connection_.paths().size();
  staging_ = e.make_memory(slots * config_.max_send_bytes);
  staging_region_ = &e.device().reg_mr(e.pd(), staging_->base(), staging_->size(),
                                       rnic::Access::local_write, staging_.get());
}

RogueReceiver::~RogueReceiver() = default;

void RogueReceiver::start() {
  for (const Path& p : connection_.paths()) post_receives(*p.qp);
}

void RogueReceiver::post_receives(rnic::QueuePair& qp) {
  // Path i's receives use staging slots [i * receive_slots, (i + 1) * receive_slots).
  const auto first = static_cast<uint32_t>(connection_.path_index(qp) * config_.receive_slots);
  for (uint32_t s = 0; s < config_.receive_slots; ++s) repost(qp, first + s);
}

void RogueReceiver::repost(rnic::QueuePair& qp, uint32_t slot) {
  rnic::RecvWr wr;
  wr.wr_id = slot;
  wr.sge = rnic::Sge{.addr = staging_->base() + uint64_t{slot} * config_.max_send_bytes,
                     .length = static_cast<uint32_t>(config_.max_send_bytes),
                     .lkey = staging_region_->lkey};
  qp.post_recv(wr);
}

void RogueReceiver::post_app_receive(uint64_t wr_id, const MessageBuffer& buffer) {
  if (buffer.length > 0 && buffer.region == nullptr) {
    throw Error("rogue post_recv: the buffer has no memory region");
  }
  app_receives_.push_back(AppReceive{.wr_id = wr_id, .buffer = buffer});
  deliver();
}

void RogueReceiver::repost(const rnic::WorkCompletion& wc) {
  rnic::QueuePair* qp = connection_.endpoint().device().find_qp(wc.qp_num);
  if (qp != nullptr && qp->state() != rnic::QpState::err) {
    repost(*qp, static_cast<uint32_t>(wc.wr_id));
  }
}

void RogueReceiver::on_completion(const rnic::WorkCompletion& wc) {
  if (wc.status == rnic::WcStatus::flush_error) return;  // a replaced QP's receives
  if (wc.status != rnic::WcStatus::success) {
    repost(wc);
    return;
  }
  if (config_.qp_type == QpType::rc) {
    rnic::QueuePair* qp = connection_.endpoint().device().find_qp(wc.qp_num);
    if (qp == nullptr) return;
    if (connection_.path_index(*qp) != current_path_) {
      held_.push_back(wc);  // the takeover notice naming this path has not come yet
      return;
    }
    if (skip_ > 0) {
      --skip_;
      ++stats_.duplicates_suppressed;
      repost(wc);
      return;
    }
  }
  accept(wc);
}

void RogueReceiver::accept(const rnic::WorkCompletion& wc) {
  const auto slot = static_cast<uint32_t>(wc.wr_id);
  const bool by_write = wc.opcode == rnic::WcOpcode::recv_rdma_with_imm;
  std::optional<RogueImm> rogue;
  if (wc.imm && config_.qp_type == QpType::uc && is_rogue_imm(*wc.imm)) {
    const auto decoded = decode_rogue_imm(*wc.imm);
    if (decoded) rogue = decoded.value;
  }
  if (rogue && rogue->kind == RogueImmKind::echo) {
    connection_.on_echo(rogue->batch, rogue->t_response, wc.hw_timestamp);
  } else if (rogue) {
    echo(wc, rogue->batch);
  }
  ++received_;
  // A SEND (whatever its immediate) or the application's own immediate goes to the
  // application; RoGUE's zero-length WRITE_WITH_IMMs do not.
  if (!by_write || !rogue) {
    arrivals_.push_back(Arrival{.slot = slot,
                                .qp_num = wc.qp_num,
                                .bytes = by_write ? 0 : wc.byte_len,
                                .imm = rogue ? std::nullopt : wc.imm,
                                .by_write = by_write});
    deliver();
  } else {
    repost(wc);
  }
}

void RogueReceiver::on_takeover(const ControlMessage& notice) {
  ControlMessage ack = notice;
  ack.connection = connection_.peer().connection_id;
  ack.kind = ControlKind::takeover_ack;
  connection_.endpoint().post_control(connection_.peer(), ack);
  if (notice.sequence <= last_notice_ || notice.qp_index >= connection_.paths().size()) return;
  last_notice_ = notice.sequence;
  current_path_ = notice.qp_index;
  // The new path resends from the peer's receive-consuming message `value`; what we took
  // beyond it arrived before the failure and must not be taken again.
  skip_ = received_ > notice.value ? received_ - notice.value : 0;
  std::vector<rnic::WorkCompletion> held;
  held.swap(held_);
  for (const rnic::WorkCompletion& wc : held) on_completion(wc);
}

void RogueReceiver::echo(const rnic::WorkCompletion& wc, uint8_t batch) {
  rnic::QueuePair* qp = connection_.endpoint().device().find_qp(wc.qp_num);
  if (qp == nullptr || qp->state() != rnic::QpState::rts) return;
  // T_response: from the request's arrival (its CQE timestamp) to the reply's posting (the
  // NIC clock read just before it); the reply's own queueing is ignored, as in §3.4.
  const Time response = connection_.endpoint().device().hw_time() - wc.hw_timestamp;
  rnic::SendWr wr;
  wr.wr_id = kEchoWrId;
  wr.opcode = rnic::WrOpcode::rdma_write_with_imm;
  wr.imm = encode_echo(batch, response);
  wr.signaled = false;
  qp->post_send(wr);
  ++stats_.echoes_sent;
}

void RogueReceiver::deliver() {
  while (!arrivals_.empty() && !app_receives_.empty()) {
    const Arrival a = arrivals_.front();
    const AppReceive r = app_receives_.front();
    arrivals_.pop_front();
    app_receives_.pop_front();
    uint64_t bytes = a.bytes;
    if (bytes > r.buffer.length) bytes = r.buffer.length;  // truncated, as a short receive
    if (bytes > 0) {
      world::Payload payload;
      staging_->read(staging_->base() + uint64_t{a.slot} * config_.max_send_bytes,
                     static_cast<uint32_t>(bytes), payload);
      r.buffer.region->memory->write(r.buffer.addr, payload);
    }
    if (rnic::QueuePair* qp = connection_.endpoint().device().find_qp(a.qp_num);
        qp != nullptr && qp->state() == rnic::QpState::rts) {
      repost(*qp, a.slot);
    }
    if (handler_) {
      handler_(Receive{.wr_id = r.wr_id, .bytes = bytes, .imm = a.imm, .by_write = a.by_write});
    }
  }
}

void RogueReceiver::on_set_rate(uint16_t qp_index, uint64_t bps) {
  const auto& paths = connection_.paths();
  if (qp_index >= paths.size()) return;
  connection_.endpoint().device().set_rate_limit(*paths[qp_index].qp,
                                                 Rate::bps(static_cast<int64_t>(bps)));
}

}  // namespace bifrost::transport::rogue
