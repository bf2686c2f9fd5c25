#include "bifrost/net/flowctl/pfc_gate.h"

#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {

PfcGate::PfcGate(world::Scheduler& scheduler) : scheduler_(scheduler) {}

PfcGate::~PfcGate() {
  for (world::TimerId& id : expiry_) scheduler_.cancel(id);
}

void PfcGate::on_control(const ControlFrame& frame) {
  if (frame.kind != ControlKind::kPause) return;
  for (int p = 0; p < kPriorities; ++p) {
    if (((frame.class_enable >> p) & 1) == 0) continue;
    if (frame.pause_quanta[p] == 0) {
      ++counters_.resume_frames_received[p];
      end_pause(p);
    } else {
      ++counters_.pause_frames_received[p];
      pause(p, frame.pause_quanta[p]);
    }
  }
}

void PfcGate::pause(int priority, uint16_t quanta) {
  const Time now = scheduler_.now();
  if (!paused(priority)) {
    paused_since_[priority] = now;
    close(priority);
  }
  // Quanta are measured at the rate of the link the pause arrived on.
  paused_until_[priority] = now + pause_duration(quanta, port()->channel()->rate());
  scheduler_.cancel(expiry_[priority]);
  expiry_[priority] = scheduler_.at(paused_until_[priority], [this, priority] {
    expiry_[priority] = {};
    end_pause(priority);
  });
}

void PfcGate::end_pause(int priority) {
  if (!paused(priority)) return;
  scheduler_.cancel(expiry_[priority]);
  expiry_[priority] = {};
  const Time length = scheduler_.now() - paused_since_[priority];
  counters_.paused_time[priority] += length;
  ++counters_.pause_episodes[priority];
  counters_.episode_ns[priority].add(length.nanoseconds());
  open(priority);
}

Time PfcGate::paused_time(int priority) const {
  Time total = counters_.paused_time[priority];
  if (paused(priority)) total += scheduler_.now() - paused_since_[priority];
  return total;
}

}  // namespace bifrost::net
