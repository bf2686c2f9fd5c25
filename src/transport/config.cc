#include "bifrost/transport/config.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/transport/wire/write_imm.h"

namespace bifrost::transport {

CcParams TransportConfig::cc_params() const {
  return CcParams{.base_rtt = base_rtt,
                  .bdp_bytes = static_cast<uint64_t>(static_cast<double>(line_rate_bps) / 8 *
                                                     base_rtt.seconds()),
                  .mss = unit_size,
                  .line_rate = Rate::bps(static_cast<int64_t>(line_rate_bps)),
                  .mtu = mtu};
}

TransportConfig TransportConfig::paper() {
  TransportConfig c;
  c.unit_size = 4096;
  c.max_chunk = 64 * 1024;
  c.send_threshold = 32 * 1024;
  c.ack_every_wqes = 32;
  c.ack_every_bytes = 32 * 1024;
  c.ack_timer = Time::us(120);
  c.base_rtt = Time::us(50);
  c.cc.kind = CcKind::swift;
  c.cc.swift.params.loss_to_minimum = true;
  c.cc.swift.params.target_follows_min_rtt = false;
  c.cc.swift.params.loss_gate = false;  // §3.4.3: the minimum window on any drop
  c.hint_when_idle = false;
  c.hint_last_two = false;
  c.tail_probe = false;  // the paper has no tail-loss probe: a lost tail waits for the RTO
  c.tail_probe_learns = false;
  c.chunk_loss_budget = 0;
  c.send_threshold_follows_loss = false;
  return c;
}

uint64_t TransportConfig::smallest_large_message() const {
  const bool follows = send_threshold_follows_loss && reliability == Reliability::software_uc;
  return uint64_t{follows ? std::min(2 * unit_size, send_threshold) : send_threshold} + 1;
}

uint64_t TransportConfig::max_message_size() const {
  return uint64_t{unit_size} << imm.chunk_offset_bits;
}

void TransportConfig::validate() const {
  (void)WriteImmCodec(imm);  // throws for a bad layout
  if (unit_size < 256 || (unit_size & (unit_size - 1)) != 0) {
    throw Error("transport: unit_size {} must be a power of two of at least 256 bytes", unit_size);
  }
  if (max_chunk < unit_size || max_chunk % unit_size != 0) {
    throw Error("transport: max_chunk {} must be a multiple of unit_size {}", max_chunk, unit_size);
  }
  if (!(chunk_loss_budget >= 0 && chunk_loss_budget <= 1)) {
    throw Error("transport: chunk_loss_budget {} must be in [0, 1]", chunk_loss_budget);
  }
  if (send_threshold == 0 || send_threshold >= max_message_size()) {
    throw Error("transport: send_threshold {} must be between 1 and the largest message ({})",
                send_threshold, max_message_size());
  }
  if (max_message_size() > 0xFFFF'FFFFu) {
    throw Error(
        "transport: the largest message ({} B = unit_size << chunk_offset_bits) must fit "
        "the 32-bit length of a write request",
        max_message_size());
  }
  if (mtu < 256 || mtu > 4096 || (mtu & (mtu - 1)) != 0) {
    throw Error("transport: mtu {} must be 256..4096 and a power of two", mtu);
  }
  if (max_outstanding_wqes == 0 || receive_slots <= max_outstanding_wqes) {
    throw Error(
        "transport: receive_slots ({}) must exceed max_outstanding_wqes ({}) so that a "
        "window of WQEs always finds receives posted",
        receive_slots, max_outstanding_wqes);
  }
  if (ack_every_wqes == 0 || ack_every_wqes > 32) {
    throw Error("transport: ack_every_wqes {} must be 1..32 (an ACK holds 32 entries)",
                ack_every_wqes);
  }
  if (ack_every_bytes == 0 || ack_timer <= Time::zero()) {
    throw Error("transport: ack_every_bytes ({}) and ack_timer must be positive", ack_every_bytes);
  }
  if (arena_bytes < max_message_size()) {
    throw Error("transport: arena_bytes {} cannot hold the largest message ({} B)", arena_bytes,
                max_message_size());
  }
  if (base_rtt <= Time::zero() || line_rate_bps == 0 || min_rto <= Time::zero()) {
    throw Error("transport: base_rtt, line_rate_bps and min_rto must be positive");
  }
  if (cc_location == CcLocation::software) {
    if (needs_ecn_echo(cc.kind) && reliability != Reliability::software_uc) {
      throw Error(
          "transport: cc \"{}\" needs software_uc reliability (the ECN echo rides on "
          "software ACKs{})",
          to_string(cc.kind),
          cc.kind == CcKind::dcqcn ? "; over RC use cc_location nic and the NIC's DCQCN" : "");
    }
    cc.validate(cc_params());
  }
  // Remote-parameter requests use them too, so they must be positive even with reconnect off.
  if (reconnect_interval <= Time::zero() || reconnect_attempts == 0) {
    throw Error("transport: reconnect_interval and reconnect_attempts must be positive");
  }
}

}  // namespace bifrost::transport
