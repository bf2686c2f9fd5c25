#include "bifrost/transport/rogue/rogue_config.h"

#include "bifrost/core/error.h"

namespace bifrost::transport::rogue {

uint64_t default_segment_bytes(Rate line_rate) {
  if (line_rate <= Rate::Gbps(10)) return 64 * 1024;
  if (line_rate < Rate::Gbps(100)) return 128 * 1024;
  return 256 * 1024;
}

Rate default_rate_step(Rate line_rate) {
  return line_rate <= Rate::Gbps(10) ? Rate::Gbps(1) : line_rate / 10;
}

uint64_t RogueConfig::segment() const {
  return segment_bytes != 0 ? segment_bytes : default_segment_bytes(line_rate);
}

uint64_t RogueConfig::batch() const {
  return batch_bytes != 0 ? batch_bytes : segment();
}

VegasParams RogueConfig::vegas_params() const {
  VegasParams p = vegas;
  p.packet_bytes = mtu;
  p.line_rate = line_rate;
  p.rate_step = rate_step != Rate() ? rate_step : default_rate_step(line_rate);
  return p;
}

void RogueConfig::validate() const {
  if (line_rate <= Rate::bps(0)) throw Error("rogue: line_rate must be positive");
  if (mtu < 256 || mtu > 4096 || (mtu & (mtu - 1)) != 0) {
    throw Error("rogue: mtu {} is not 256, 512, 1024, 2048 or 4096", mtu);
  }
  if (segment() < mtu) throw Error("rogue: segment {} B is below the MTU {} B", segment(), mtu);
  if (batch() < segment()) {
    throw Error("rogue: batch {} B is below the segment {} B", batch(), segment());
  }
  if (min_batches < 1) throw Error("rogue: min_batches must be at least 1");
  if (rc_retry_cnt > 7) throw Error("rogue: rc_retry_cnt {} is above 7", rc_retry_cnt);
  if (rc_timeout > 31) throw Error("rogue: rc_timeout {} is above 31", rc_timeout);
  if (receive_slots == 0) throw Error("rogue: receive_slots must be positive");
  if (max_send_bytes == 0 || max_send_bytes > max_verb_bytes) {
    throw Error("rogue: max_send_bytes {} must be 1 .. max_verb_bytes", max_send_bytes);
  }
  if (max_verb_bytes > (uint64_t{1} << 31)) {
    throw Error("rogue: max_verb_bytes {} is above 2^31", max_verb_bytes);
  }
  if (uc_sample_timeout <= Time::zero()) throw Error("rogue: uc_sample_timeout must be positive");
  if (signal_cost < Time::zero() || clock_read_cost < Time::zero()) {
    throw Error("rogue: signal_cost and clock_read_cost must not be negative");
  }
  if (rtt_noise < Time::zero()) throw Error("rogue: rtt_noise must not be negative");
  if (resync_interval <= Time::zero() || resync_attempts == 0) {
    throw Error("rogue: resync_interval and resync_attempts must be positive");
  }
  vegas_params().validate();
}

}  // namespace bifrost::transport::rogue
