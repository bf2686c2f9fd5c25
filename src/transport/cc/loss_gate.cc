#include "bifrost/transport/cc/loss_gate.h"

#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::transport {

LossGate::LossGate(double tolerance, double memory_packets, uint32_t packet_bytes)
    : tolerance_(tolerance), packet_bytes_(packet_bytes), rate_(memory_packets) {
  if (!(tolerance >= 0 && tolerance < 1) || packet_bytes == 0) {
    throw Error("loss gate: the tolerance ({}) must be in [0, 1) and the packet size positive",
                tolerance);
  }
  // Start at the tolerance: a connection's losses are taken for corruption only once it has
  // delivered enough to show that they are rare. Its first loss, with nothing delivered yet
  // but a full initial window, is an incast's overflow as likely as not.
  rate_.on_lost(static_cast<uint64_t>(std::ceil(tolerance * memory_packets)));
}

void LossGate::on_delivered(uint64_t bytes) {
  rate_.on_sent((bytes + packet_bytes_ - 1) / packet_bytes_);
}

bool LossGate::on_loss(bool queue_seen) {
  rate_.on_lost();
  return queue_seen || rate_.rate() > tolerance_;
}

}  // namespace bifrost::transport
