#include "bifrost/transport/chunking/loss_estimate.h"

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::transport {

PacketLossEstimate::PacketLossEstimate(double memory_packets) {
  if (!(memory_packets > 1)) {
    throw Error("loss estimate: the memory must exceed one packet (got {})", memory_packets);
  }
  gain_ = 1 / memory_packets;
  log_keep_ = std::log1p(-gain_);
}

void PacketLossEstimate::on_sent(uint64_t packets) {
  if (rate_ == 0) return;  // the common lossless case costs no exp()
  rate_ *= std::exp(static_cast<double>(packets) * log_keep_);
  if (rate_ < 1e-9) rate_ = 0;
}

void PacketLossEstimate::on_lost(uint64_t packets) {
  rate_ = std::min(1.0, rate_ + gain_ * static_cast<double>(packets));
}

}  // namespace bifrost::transport
