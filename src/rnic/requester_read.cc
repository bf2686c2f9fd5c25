// The requester's half of RDMA READ: placing the responses and asking again for lost ones.
// Go-back-N takes responses in order and asks for the rest of the READ after a gap, as hardware
// does. The selective engines (R-READ) place every response where it belongs, remember which
// arrived, and ask again only for the holes: one READ request per run of missing responses.
// Their responders acknowledge every READ request, so a READ behind a lost request runs at
// once and a lost request is SACKed like any other.
#include <algorithm>

#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/rnic/requester.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic {

void Requester::on_read_response(const world::Packet& packet) {
  if (nic_.recovery().selective()) {
    on_read_response_selective(packet);
  } else {
    on_read_response_in_order(packet);
  }
}

bool Requester::place_read_response(Slot& slot, uint32_t index, const world::Payload& payload) {
  const uint64_t offset = uint64_t{index} * qp_.query().path_mtu;
  if (offset + payload.length > slot.wr.sge.length) {
    fail(WcStatus::local_length_error, 0);
    return false;
  }
  if (payload.length > 0 && slot.mr != nullptr && slot.mr->memory != nullptr) {
    slot.mr->memory->write(slot.wr.sge.addr + offset, payload);
  }
  return true;
}

void Requester::read_progress() {
  while (!sq_.empty() && is_read(sq_.front().wr)) {
    Slot& front = sq_.front();
    const uint32_t reached = wire::psn_add(front.first_psn, front.read_received);
    if (wire::psn_before(una_, reached)) una_ = reached;
    if (front.read_received < front.span) break;
    complete_front();
  }
  if (wire::psn_before(acked_, una_)) acked_ = una_;
  read_gap_reported_ = false;
  engine_->on_ack(una_);
  // An ACK that passed a READ before its last response arrived acknowledged more.
  if (wire::psn_before(una_, acked_)) acknowledge_to(acked_);
  after_progress();
}

void Requester::on_read_response_in_order(const world::Packet& packet) {
  const uint32_t psn = packet.roce.bth.psn;
  Slot* slot = find_slot(psn);
  if (slot == nullptr || !is_read(slot->wr)) return;
  const uint32_t expected = wire::psn_add(slot->first_psn, slot->read_received);
  if (psn == expected && wire::psn_before(una_, psn))
    acknowledge_to(psn);  // implied ACK of earlier ones
  slot = find_slot(psn);
  if (slot == nullptr || psn != expected || una_ != psn) {
    if (!wire::psn_before(psn, expected) && !read_gap_reported_) report_read_gap();
    return;
  }
  if (!place_read_response(*slot, slot->read_received, packet.payload)) return;
  ++slot->read_received;
  read_progress();
}

void Requester::on_read_response_selective(const world::Packet& packet) {
  const uint32_t psn = packet.roce.bth.psn;
  Slot* slot = find_slot(psn);
  if (slot == nullptr || !is_read(slot->wr)) return;
  // Responses are placed whichever READ they belong to, at the front or behind it. Unlike under
  // go-back-N they acknowledge nothing: the responder ACKs or SACKs every READ request (behind
  // its responses) and may run one ahead of a lost request.
  const auto index = static_cast<uint32_t>(wire::psn_diff(psn, slot->first_psn));
  const bool ahead = index > slot->read_received;
  if (index < slot->read_received ||
      (ahead && !slot->read_ahead.empty() && slot->read_ahead[index])) {
    return;  // a duplicate: the original and a re-request both answered
  }
  if (!place_read_response(*slot, index, packet.payload)) return;
  if (ahead) {
    if (slot->read_ahead.empty()) slot->read_ahead.assign(slot->span, false);
    slot->read_ahead[index] = true;
  } else {
    ++slot->read_received;
    while (slot->read_received < slot->span && !slot->read_ahead.empty() &&
           slot->read_ahead[slot->read_received]) {
      ++slot->read_received;
    }
  }
  read_progress();
  check_read_holes();
}

void Requester::check_read_holes() {
  if (sq_.empty() || !is_read(sq_.front().wr)) return;
  const Slot& front = sq_.front();
  // A READ's responses leave the responder in order: one past missing ones shows them lost.
  // Missing ones at its end show only when an ACK passes the READ (report_read_gap).
  if (next_read_hole(front, std::max(front.read_received, front.read_asked_to), read_tail_lost_)) {
    read_resend_ = true;
    nic_.wake(qp_);
  }
}

std::optional<Requester::ReadHole> Requester::next_read_hole(const Slot& slot, uint32_t from,
                                                             bool tail) const {
  if (slot.read_ahead.empty()) {
    // Nothing arrived past read_received (the common in-order stream): only a known tail is a
    // hole, and no scan is needed on every response.
    const uint32_t first = std::max(from, slot.read_received);
    if (!tail || first >= slot.span) return std::nullopt;
    return ReadHole{first, slot.span - first};
  }
  const auto arrived = [&slot](uint32_t i) {
    return i < slot.read_received || (!slot.read_ahead.empty() && slot.read_ahead[i]);
  };
  uint32_t first = std::max(from, slot.read_received);
  while (first < slot.span && arrived(first)) ++first;
  if (first >= slot.span) return std::nullopt;
  uint32_t end = first;
  while (end < slot.span && !arrived(end)) ++end;
  if (end == slot.span && !tail) return std::nullopt;  // nothing after it shows it lost
  return ReadHole{first, end - first};
}

bool Requester::produce_read_repair(world::Packet& out) {
  read_resend_ = false;
  Slot* slot = find_slot(una_);
  // Only a READ whose request went out can be repaired. A timeout's "every hole counts" may
  // outlive the READ it was for: once that READ completes, una_ reaches the next one, which
  // may not have been sent yet; repairing it would send its request without moving snd_max_,
  // and its responses would carry una_ past snd_max_ (a QP that never sends again).
  if (slot == nullptr || !is_read(slot->wr) || !wire::psn_before(slot->first_psn, snd_max_) ||
      una_ != wire::psn_add(slot->first_psn, slot->read_received)) {
    read_tail_lost_ = false;
    return false;
  }
  const std::optional<ReadHole> hole =
      next_read_hole(*slot, std::max(slot->read_received, slot->read_asked_to), read_tail_lost_);
  if (!hole) {
    read_tail_lost_ = false;
    return false;
  }
  build(*slot, wire::psn_add(slot->first_psn, hole->first), out, hole->count);
  slot->read_asked_to = hole->first + hole->count;
  ++retransmitted_;
  ++nic_.counters().tx_retransmitted;
  arm_timer();
  // More holes already known go next.
  read_resend_ = next_read_hole(*slot, slot->read_asked_to, read_tail_lost_).has_value();
  if (!read_resend_) read_tail_lost_ = false;
  return true;
}

}  // namespace bifrost::rnic
