#pragma once
// The connection's packet loss rate as the sender sees it, for sizing chunks. Over UC a lost
// packet loses its whole chunk (it goes again as unit-sized pieces), so a chunk of n packets
// costs about n * p of its bytes again: chunks should shrink while losses are seen and grow
// back when they stop.
#include <algorithm>
#include <cstdint>

namespace bifrost::transport {

// An exponentially fading count: every packet sent scales the estimate by (1 - 1/memory), every
// packet known lost adds 1/memory. At a steady loss rate p the estimate settles at p; with no
// loss it fades by 1/e every `memory` packets.
class PacketLossEstimate {
 public:
  explicit PacketLossEstimate(double memory_packets = 1024);
  void on_sent(uint64_t packets);
  void on_lost(uint64_t packets = 1);
  double rate() const { return rate_; }

 private:
  double gain_;
  double log_keep_;  // log(1 - gain): n packets sent scale the estimate by exp(n * log_keep)
  double rate_ = 0;
};

// The largest WQE, at most `limit` bytes, that UC sends again (lost whole with any of its
// packets) with probability at most about `budget` at the packet loss rate `loss_rate`:
// budget / loss_rate packets of the MTU. `limit` when no loss is seen or the budget is 0.
inline uint64_t loss_budget_bytes(double budget, double loss_rate, uint32_t mtu, uint64_t limit) {
  if (budget <= 0 || loss_rate <= 0) return limit;
  return static_cast<uint64_t>(std::min(budget / loss_rate * mtu, static_cast<double>(limit)));
}

}  // namespace bifrost::transport
