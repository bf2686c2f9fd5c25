#pragma once
// The upstream half of PFC, in the egress port at the far end of a link (a switch port or a
// host NIC). A pause of q quanta closes the priority for q x 512 bit times at the link rate,
// counted from its arrival; every pause re-arms the timer, a zero-time pause or the timer's
// expiry opens the priority. The frame on the wire when a pause arrives is finished, so a port
// stops within one frame.
#include <array>
#include <cstdint>

#include "bifrost/core/stats.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct PfcGateCounters {
  std::array<uint64_t, kPriorities> pause_frames_received{};   // nonzero time for p
  std::array<uint64_t, kPriorities> resume_frames_received{};  // zero time for p
  std::array<uint64_t, kPriorities> pause_episodes{};          // closed -> opened, finished
  std::array<Time, kPriorities> paused_time{};                 // sum of finished episodes
  std::array<RunningStats, kPriorities> episode_ns;            // finished episode lengths
};

class PfcGate final : public EgressGate {
 public:
  explicit PfcGate(world::Scheduler& scheduler);
  ~PfcGate() override;

  void on_control(const ControlFrame& frame) override;

  bool paused(int priority) const { return (closed_mask() >> priority) & 1; }
  // When a running pause ends unless refreshed or resumed; meaningless when not paused.
  Time paused_until(int priority) const { return paused_until_[priority]; }
  // Total paused time of a priority, including a running episode.
  Time paused_time(int priority) const;
  const PfcGateCounters& counters() const { return counters_; }

 private:
  void pause(int priority, uint16_t quanta);
  void end_pause(int priority);

  world::Scheduler& scheduler_;
  std::array<Time, kPriorities> paused_since_{};
  std::array<Time, kPriorities> paused_until_{};
  std::array<world::TimerId, kPriorities> expiry_{};
  PfcGateCounters counters_;
};

}  // namespace bifrost::net
