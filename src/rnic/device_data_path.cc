// The device's data path: the transmit scheduler (ACK-class packets first, then QPs by
// priority class, round-robin within a class, each QP paced by its rate limiter) and the
// receive side (the finite receive pipeline and QP-context cache, then demultiplexing by QPN).
#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/rnic/device.h"
#include "bifrost/rnic/requester.h"
#include "bifrost/wire/frame.h"

namespace bifrost::rnic {
namespace {

// Bytes the packet occupies on the wire (Ethernet frame without preamble), which is what a
// hardware rate limiter meters.
uint32_t wire_bytes(const world::Packet& packet) {
  return static_cast<uint32_t>(wire::ethernet_frame_size(packet.roce, packet.payload.length));
}

}  // namespace

void Device::attach(world::PacketPort& port) {
  if (port_ != nullptr) throw Error("device {}: already attached to a port", config_.name);
  port_ = &port;
  port.set_receive_handler([this](world::PacketPtr p) { receive(std::move(p)); });
  port.set_transmit_handler([this] { on_transmitted(); });
  pump();
}

void Device::detach() {
  if (port_ == nullptr) return;
  port_->set_receive_handler(nullptr);
  port_->set_transmit_handler(nullptr);
  port_ = nullptr;
  in_port_ = 0;
  release_sent_completions(true);  // their packets went with the port
}

uint64_t Device::recovery_memory_bytes(uint64_t qps) const {
  const recovery::MemoryFootprint f = engine_->footprint();
  return qps * (recovery::kBaseContextBytes + f.per_qp_bytes) + f.shared_bytes;
}

RateLimiter* Device::limiter_of(QueuePair& qp) {
  if (DcqcnGroup* group = dcqcn_group(qp)) return &group->limiter;
  if (class_limiters_) {
    const std::optional<size_t> chosen = qp.scheduling().limiter_index;
    return &class_limiters_->limiter(
        chosen ? *chosen : static_cast<size_t>(qp.priority()) % class_limiters_->size());
  }
  return qp.scheduling().limiter;
}

void Device::assign_limiter(QueuePair& qp, size_t index) {
  if (!class_limiters_) {
    throw Error(
        "device {}: QP {} cannot be assigned limiter {}: per-priority limiters are off "
        "(every QP has its own)",
        config_.name, qp.qp_num(), index);
  }
  if (index >= class_limiters_->size()) {
    throw Error("device {}: limiter {} does not exist: the bank has limiters 0..{}", config_.name,
                index, class_limiters_->size() - 1);
  }
  qp.scheduling().limiter_index = index;
  wake(qp);
}

std::optional<size_t> Device::claim_limiter() {
  if (!class_limiters_) return std::nullopt;
  claimed_limiters_.resize(class_limiters_->size());
  for (size_t i = 0; i < claimed_limiters_.size(); ++i) {
    if (!claimed_limiters_[i]) {
      claimed_limiters_[i] = true;
      return i;
    }
  }
  return std::nullopt;
}

void Device::release_limiter(size_t index) {
  if (index < claimed_limiters_.size()) claimed_limiters_[index] = false;
}

void Device::set_rate_limit(QueuePair& qp, Rate rate) {
  if (class_limiters_) {
    limiter_of(qp)->set_rate(rate);
  } else {
    qp.scheduling().limiter = &qp.own_limiter();
    qp.scheduling().limiter->set_rate(rate);
  }
  wake(qp);
}

void Device::disable_dcqcn() {
  config_.dcqcn.reset();
  config_.slow_restart = false;  // it cuts the DCQCN rate, which no longer exists
  for (auto& [qpn, qp] : qps_) {
    QueuePair::Scheduling& s = qp->scheduling();
    if (!s.dcqcn) continue;
    scheduler_.cancel(s.dcqcn_timer);
    s.dcqcn_timer = {};
    s.dcqcn.reset();
    set_rate_limit(*qp, RateLimiter::unlimited());
  }
  for (DcqcnGroup& g : dcqcn_groups_) scheduler_.cancel(g.timer);
  dcqcn_groups_.clear();  // their QPs go back to their own (unlimited) limiters
  for (auto& [qpn, qp] : qps_) wake(*qp);
}

void Device::wake(QueuePair& qp) {
  QueuePair::Scheduling& s = qp.scheduling();
  // A QP waiting for its rate limiter is requeued by that timer.
  if (s.queued || s.wake.valid()) return;
  s.queued = true;
  ready_[static_cast<size_t>(qp.priority())].push_back(&qp);
  pump();
}

void Device::send_ack(QueuePair& qp, const wire::RoceHeaders& headers) {
  world::PacketPtr p = world::make_packet();
  p->roce = headers;
  qp.address(*p, qp.query().av.dest_ip);
  if (config_.data_path.ack_traffic_class) p->dscp = *config_.data_path.ack_traffic_class >> 2;
  ++counters_.tx_acks;
  acks_.push_back(std::move(p));
  pump();
}

QueuePair* Device::next_ready() {
  for (size_t c = ready_.size(); c-- > 0;) {
    if (ready_[c].empty()) continue;
    QueuePair* qp = ready_[c].front();
    ready_[c].pop_front();
    return qp;
  }
  return nullptr;
}

void Device::pump() {
  // Re-entered from the port's transmit callback while sending: the loop below continues.
  if (port_ == nullptr || pumping_) return;
  pumping_ = true;
  while (in_port_ < config_.port_queue_packets) {
    if (!acks_.empty()) {
      world::PacketPtr p = std::move(acks_.front());
      acks_.pop_front();
      transmit(std::move(p));
      continue;
    }
    QueuePair* qp = next_ready();
    if (qp == nullptr) break;
    QueuePair::Scheduling& s = qp->scheduling();
    RateLimiter* limiter = limiter_of(*qp);
    const Time now = scheduler_.now();
    if (limiter != nullptr && limiter->limited() && limiter->next_send_time() > now) {
      s.queued = false;
      s.burst_sent = 0;
      s.wake = scheduler_.at(limiter->next_send_time(), [this, qp] {
        qp->scheduling().wake = {};
        wake(*qp);
      });
      continue;
    }
    world::PacketPtr p = world::make_packet();
    if (!qp->produce(*p)) {
      s.queued = false;
      s.burst_sent = 0;
      continue;
    }
    const uint32_t bytes = wire_bytes(*p);
    if (limiter != nullptr) limiter->on_send(now, bytes);
    if (DcqcnReactionPoint* rp = reaction_point(*qp)) {
      rp->on_bytes_sent(now, bytes);
      apply_dcqcn(*qp);
    }
    requeue_after_send(*qp);
    transmit(std::move(p));
  }
  pumping_ = false;
}

void Device::requeue_after_send(QueuePair& qp) {
  QueuePair::Scheduling& s = qp.scheduling();
  auto& ready = ready_[static_cast<size_t>(qp.priority())];
  if (++s.burst_sent < config_.data_path.burst_packets) {
    ready.push_front(&qp);  // its turn goes on
    return;
  }
  s.burst_sent = 0;
  ready.push_back(&qp);
}

void Device::transmit(world::PacketPtr packet) {
  ++in_port_;
  ++port_handed_;
  ++counters_.tx_packets;
  port_->send(std::move(packet));
}

void Device::on_transmitted() {
  if (in_port_ > 0) --in_port_;
  ++port_transmitted_;
  release_sent_completions(false);
  pump();
}

void Device::complete_sent(CompletionQueue& cq, const WorkCompletion& wc) {
  if (!config_.complete_sends_at_transmit || port_ == nullptr) {
    cq.push(wc);
    return;
  }
  // Called while the send's last packet is being built: it is the next one handed over.
  held_completions_.push_back(HeldCompletion{&cq, wc, port_handed_ + 1});
}

void Device::note_last_packet(QueuePair& qp, uint32_t psn) {
  if (!config_.complete_sends_at_transmit || port_ == nullptr) return;
  pending_departures_.push_back(PendingDeparture{qp.qp_num(), psn, port_handed_ + 1});
}

void Device::release_sent_completions(bool all) {
  const auto front_due = [this, all](const auto& queue) {
    return !queue.empty() && (all || queue.front().packet <= port_transmitted_);
  };
  // Called for every packet the port sends: the clock is read only when something is due.
  if (!front_due(pending_departures_) && !front_due(held_completions_)) return;
  const Time departed = port_ != nullptr ? port_->departure() : Time::zero();
  const Time stamp = departed != Time::zero() ? clock_.hw_time(departed) : hw_time();
  while (front_due(pending_departures_)) {
    const PendingDeparture& d = pending_departures_.front();
    if (QueuePair* qp = find_qp(d.qp_num); qp != nullptr && qp->requester() != nullptr) {
      qp->requester()->departed(d.psn, stamp);
    }
    pending_departures_.pop_front();
  }
  while (front_due(held_completions_)) {
    HeldCompletion& h = held_completions_.front();
    h.wc.hw_timestamp = stamp;
    h.cq->push(h.wc);
    held_completions_.pop_front();
  }
}

void Device::receive(world::PacketPtr packet) {
  ++counters_.rx_packets;
  QueuePair* qp = find_qp(packet->roce.bth.dest_qp);
  if (qp == nullptr) {
    ++counters_.rx_no_qp;
    return;
  }
  if (packet->roce.bth.opcode == wire::Opcode::kCnp) {
    on_cnp(*qp);
    return;
  }
  if (packet->ecn == 3) notify_congestion(*qp, *packet);
  if (pipeline_) {
    const Time stall = qp->pipeline_stall(*packet);
    if (stall > Time::zero()) ++counters_.pipeline_stalls;
    const Time now = scheduler_.now();
    const Time miss = cache_.access(qp->qp_num());
    // A miss either stalls the pipeline (serial fetches) or delays only this packet's start.
    Time extra = stall;
    Time ready_at = now;
    if (miss > Time::zero() && fetches_) {
      ready_at = fetches_->start(now, miss);
    } else {
      extra += miss;
    }
    const auto done = pipeline_->admit(now, wire_bytes(*packet), extra, ready_at);
    if (!done) {
      ++counters_.rx_pipeline_drops;
      return;
    }
    if (*done > now) {
      packet->payload.own();  // a borrowed payload is valid only during receive()
      scheduler_.at(*done, [this, p = std::move(packet)]() mutable { deliver(std::move(p)); });
      return;
    }
  }
  // Completions this packet produces carry its arrival time when the port knows it.
  rx_arrival_ = packet->arrival;
  qp->receive(*packet);
  rx_arrival_ = Time::zero();
}

void Device::notify_congestion(QueuePair& qp, const world::Packet& packet) {
  if (!config_.dcqcn || !notification_point_.on_ce_packet(qp.qp_num(), scheduler_.now())) return;
  // The CNP goes to the QP that sent the marked packet: the connected peer, or for UD the
  // source QP the DETH names.
  const bool ud = qp.type() == QpType::ud;
  world::PacketPtr cnp = world::make_packet();
  cnp->roce = wire::make_cnp(ud ? packet.roce.deth.src_qp : qp.query().dest_qp_num);
  qp.address(*cnp, ud ? packet.src.ip : qp.query().av.dest_ip);
  cnp->ecn = 0;
  ++counters_.cnps_sent;
  acks_.push_back(std::move(cnp));
  pump();
}

void Device::on_cnp(QueuePair& qp) {
  ++counters_.cnps_received;
  if (config_.dcqcn) cut_rate(qp);
}

void Device::on_retransmission_timeout(QueuePair& qp) {
  if (!config_.slow_restart) return;
  ++counters_.slow_restarts;
  cut_rate(qp);
}

Device::DcqcnGroup* Device::dcqcn_group(const QueuePair& qp) {
  if (dcqcn_groups_.empty() || !config_.dcqcn) return nullptr;
  // A multiplicative hash: consecutive QPNs (a transport's primary and backup QPs) spread.
  const uint64_t hash = (uint64_t{qp.qp_num()} * 0x9E3779B97F4A7C15ull) >> 32;
  return &dcqcn_groups_[hash % dcqcn_groups_.size()];
}

DcqcnReactionPoint* Device::reaction_point(QueuePair& qp) {
  if (DcqcnGroup* g = dcqcn_group(qp)) return g->rp.get();
  return qp.scheduling().dcqcn.get();
}

Device::DcqcnSlot Device::dcqcn_slot(QueuePair& qp) {
  if (DcqcnGroup* g = dcqcn_group(qp)) return DcqcnSlot{g->rp, g->timer, g->limiter};
  QueuePair::Scheduling& s = qp.scheduling();
  RateLimiter* limiter = limiter_of(qp);
  if (limiter == nullptr) {
    s.limiter = &qp.own_limiter();
    limiter = s.limiter;
  }
  return DcqcnSlot{s.dcqcn, s.dcqcn_timer, *limiter};
}

void Device::cut_rate(QueuePair& qp) {
  const DcqcnSlot slot = dcqcn_slot(qp);
  if (!slot.rp) slot.rp = std::make_unique<DcqcnReactionPoint>(*config_.dcqcn);
  slot.rp->on_cnp(scheduler_.now());
  apply_dcqcn(qp);
}

void Device::apply_dcqcn(QueuePair& qp) {
  if (DcqcnGroup* g = dcqcn_group(qp)) {
    apply_group_dcqcn(static_cast<size_t>(g - dcqcn_groups_.data()));
    return;
  }
  apply_reaction(dcqcn_slot(qp), [this, &qp] {
    qp.scheduling().dcqcn_timer = {};
    apply_dcqcn(qp);
    wake(qp);
  });
}

void Device::apply_group_dcqcn(size_t index) {
  DcqcnGroup& g = dcqcn_groups_[index];
  // The group outlives its QPs, so its timer names the group; a QP waiting for the group's
  // limiter has its own wake-up.
  apply_reaction(DcqcnSlot{g.rp, g.timer, g.limiter}, [this, index] {
    dcqcn_groups_[index].timer = {};
    apply_group_dcqcn(index);
  });
}

void Device::apply_reaction(DcqcnSlot slot, world::TimerCallback on_timer) {
  slot.rp->advance(scheduler_.now());
  const Rate rate =
      slot.rp->rate() >= config_.dcqcn->line_rate ? RateLimiter::unlimited() : slot.rp->rate();
  if (slot.limiter.rate() != rate && slot.limiter.pending_rate() != rate) {
    slot.limiter.set_rate(rate);
  }
  const Time next = slot.rp->next_timer();
  if (slot.timer.valid()) return;  // the pending timer re-applies and re-arms
  if (next == Time::max()) return;
  slot.timer = scheduler_.at(next, std::move(on_timer));
}

void Device::deliver(world::PacketPtr packet) {
  // Looked up again: the QP may have been destroyed while the packet sat in the pipeline.
  if (QueuePair* qp = find_qp(packet->roce.bth.dest_qp)) qp->receive(*packet);
}

}  // namespace bifrost::rnic
