#include "bifrost/net/egress_port.h"

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"

namespace bifrost::net {

EgressPort::EgressPort(world::Scheduler& scheduler, uint32_t id, const SchedulingConfig& config)
    : scheduler_(scheduler), id_(id), picker_(config) {}

void EgressPort::set_gate(std::unique_ptr<EgressGate> gate) {
  gate_ = std::move(gate);
  if (gate_) gate_->bind(*this);
}

void EgressPort::set_scheduling(const SchedulingConfig& config) {
  if (nonempty_mask_ != 0) {
    throw Error("egress port {}: change the scheduling policy before traffic is queued", id_);
  }
  picker_ = PriorityScheduler(config);
}

void EgressPort::attach(Channel& channel) {
  if (channel_ != nullptr) {
    throw Error("egress port {} already feeds a link; a port has one link", id_);
  }
  channel_ = &channel;
}

Bytes EgressPort::total_queue_bytes() const {
  uint64_t sum = 0;
  for (uint64_t b : queue_bytes_) sum += b;
  return Bytes(sum);
}

void EgressPort::enqueue(int priority, QueuedPacket entry) {
  if (channel_ == nullptr) {
    throw Error("egress port {} has no link: attach it with a Link before sending", id_);
  }
  if (priority < 0 || priority >= kPriorities) {
    throw Error("egress port {}: priority must be 0..7, got {}", id_, priority);
  }
  queue_bytes_[priority] += entry.frame_bytes;
  queues_[priority].push_back(std::move(entry));
  nonempty_mask_ |= static_cast<uint8_t>(1u << priority);
  wake();
}

void EgressPort::send_control(const ControlFrame& frame) {
  if (channel_ == nullptr) {
    throw Error("egress port {} has no link for a control frame", id_);
  }
  // A pause frame still waiting merges into the waiting one, so the lane sends the latest
  // state of every priority in one frame, as a MAC does, and never queues stale decisions.
  if (frame.kind == ControlKind::kPause) {
    for (std::size_t i = 0; i < control_.size(); ++i) {
      ControlFrame& waiting = control_[i];
      if (waiting.kind != ControlKind::kPause) continue;
      for (int p = 0; p < kPriorities; ++p) {
        if ((frame.class_enable >> p) & 1) waiting.pause_quanta[p] = frame.pause_quanta[p];
      }
      waiting.class_enable |= frame.class_enable;
      ++counters_.control_frames_merged;
      return;
    }
  }
  control_.push_back(frame);
  wake();
}

void EgressPort::receive_control(const ControlFrame& frame) {
  ++counters_.control_frames_received;
  if (gate_) {
    gate_->on_control(frame);
  } else {
    ++counters_.control_frames_ignored;
  }
}

void EgressPort::wake() {
  if (wakeup_pending_) return;
  if (scheduler_.now() < busy_until_) {
    schedule_wakeup();
  } else {
    transmit_next();
  }
}

void EgressPort::schedule_wakeup() {
  wakeup_pending_ = true;
  scheduler_.at(busy_until_, [this] {
    wakeup_pending_ = false;
    transmit_next();
  });
}

int EgressPort::pick_priority() {
  uint8_t eligible = nonempty_mask_;
  if (gate_) {
    eligible &= static_cast<uint8_t>(~gate_->closed_mask());
    if (gate_->checks_frame_size()) {
      for (int p = 0; p < kPriorities; ++p) {
        if (((eligible >> p) & 1) && !gate_->may_send(p, queues_[p].front().frame_bytes)) {
          eligible &= static_cast<uint8_t>(~(1u << p));
        }
      }
    }
  }
  return picker_.pick(eligible, [this](int p) { return queues_[p].front().frame_bytes; });
}

// Precondition: the wire is free (now >= busy_until_).
void EgressPort::transmit_next() {
  const Time now = scheduler_.now();
  if (!control_.empty()) {
    const ControlFrame frame = control_.pop_front();
    busy_until_ = now + channel_->transmit_control(frame);
    ++counters_.control_frames_sent;
  } else {
    const int p = pick_priority();
    if (p < 0) return;  // idle, or everything queued is gated: the gate wakes us
    QueuedPacket entry = queues_[p].pop_front();
    queue_bytes_[p] -= entry.frame_bytes;
    if (queues_[p].empty()) {
      nonempty_mask_ &= static_cast<uint8_t>(~(1u << p));
      picker_.queue_emptied(p);
    }
    ++counters_.tx_packets[p];
    counters_.tx_bytes[p] += entry.frame_bytes;
    busy_until_ = now + channel_->transmit_data(std::move(entry.packet), entry.frame_bytes);
    if (gate_) gate_->on_transmit(p, entry.frame_bytes);
    if (listener_) listener_->on_dequeue(id_, p, entry.frame_bytes, entry.tag);
  }
  if (!wakeup_pending_ && (nonempty_mask_ != 0 || !control_.empty())) schedule_wakeup();
}

}  // namespace bifrost::net
