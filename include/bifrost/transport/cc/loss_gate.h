#pragma once
// Tells a loss that congestion caused from one that random corruption explains, for a window
// algorithm that would otherwise cut on every loss (Swift's loss_gate; docs/transport.md,
// "Random loss vs congestion").
//
// Two signs of congestion, either enough:
// - the RTT shows a queue when the loss is found (a full queue drops only after the RTT rose);
// - the connection loses more than random loss at up to `tolerance` explains: a fading count
//   of loss events per delivered packet (PacketLossEstimate, `memory_packets` long) above the
//   tolerance. Random corruption at a rate p yields at most p loss events per packet, however
//   it falls; an overflowing queue drops in bursts, far above any tolerable corruption rate,
//   and this sign holds even when the connection's newest RTT sample is stale (an incast of
//   thousands of one-unit windows sees few samples).
// A loss with neither sign is corruption: resent without a cut.
#include <cstdint>

#include "bifrost/transport/chunking/loss_estimate.h"

namespace bifrost::transport {

class LossGate {
 public:
  // tolerance: the packet loss rate random loss may explain, in [0, 1); memory_packets: how
  // many delivered packets the loss rate is averaged over (> 1); packet_bytes: the MTU, to
  // count delivered bytes as packets. Throws Error for values outside those ranges.
  LossGate(double tolerance, double memory_packets, uint32_t packet_bytes);

  // Bytes the peer acknowledged: delivered packets fade the loss rate.
  void on_delivered(uint64_t bytes);
  // A loss event (a gap, a tail probe, a timeout): counted, then true if it is congestion,
  // that is if `queue_seen` or the loss rate now exceeds the tolerance.
  bool on_loss(bool queue_seen);
  // The loss events per delivered packet, as the gate sees them.
  double loss_rate() const { return rate_.rate(); }

 private:
  double tolerance_;
  uint32_t packet_bytes_;
  PacketLossEstimate rate_;
};

}  // namespace bifrost::transport
