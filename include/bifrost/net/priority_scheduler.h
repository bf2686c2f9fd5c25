#pragma once
// Chooses which of the 8 priority queues of an egress port sends next: strict priority (7 is
// served first) or deficit weighted round robin by bytes (each visit adds the priority's
// quantum to its deficit; a frame goes when the deficit covers it).
#include <array>
#include <bit>
#include <cstdint>

#include "bifrost/net/frame.h"

namespace bifrost::net {

enum class SchedulingPolicy : uint8_t { kStrictPriority, kDeficitRoundRobin };

struct SchedulingConfig {
  SchedulingPolicy policy = SchedulingPolicy::kStrictPriority;
  // DWRR bytes per round per priority: the weights. Should be at least the largest frame so
  // that a frame goes in one visit.
  std::array<uint32_t, kPriorities> quantum_bytes{1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500};
};

class PriorityScheduler {
 public:
  // Throws Error for a zero DWRR quantum.
  explicit PriorityScheduler(const SchedulingConfig& config);

  // The next priority among `eligible` (bit mask) or -1 if none; `head_bytes(p)` is the size of
  // the frame at the head of queue p. Charges the frame to the priority's deficit.
  template <typename HeadBytes>
  int pick(uint8_t eligible, HeadBytes&& head_bytes) {
    if (eligible == 0) return -1;
    if (config_.policy == SchedulingPolicy::kStrictPriority) {
      return std::bit_width(static_cast<unsigned>(eligible)) - 1;
    }
    // Terminates: every turn past an eligible queue adds its positive quantum.
    for (;;) {
      const int p = current_;
      if ((eligible >> p) & 1) {
        if (!credited_) {
          deficit_[p] += config_.quantum_bytes[p];
          credited_ = true;
        }
        const uint32_t need = head_bytes(p);
        if (deficit_[p] >= need) {
          deficit_[p] -= need;
          return p;
        }
      }
      current_ = (current_ + 1) % kPriorities;
      credited_ = false;
    }
  }

  // An emptied queue forfeits its deficit, as in DRR.
  void queue_emptied(int priority) { deficit_[priority] = 0; }

 private:
  SchedulingConfig config_;
  std::array<uint64_t, kPriorities> deficit_{};
  int current_ = 0;
  bool credited_ = false;  // the current queue got its quantum for this visit
};

}  // namespace bifrost::net
