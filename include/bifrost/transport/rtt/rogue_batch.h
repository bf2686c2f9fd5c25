#pragma once
// What RoGUE's batch RTT estimators (§3.3, §3.4) know of a batch when it is enqueued, and the
// time its own bytes take at the rate limit, B_sig / rate_limit, which both estimators subtract
// so that a sample is queueing and path delay, not the NIC serialising the batch.
//
// B_sig is counted in *wire* bytes, the unit the NIC's rate limiter meters (the Ethernet frame
// without FCS, rnic/device_data_path.cc): a batch's verbs converted with verb_wire_bytes, so the
// subtracted time is exactly what the limiter spends on them. With no limit in force the NIC
// sends at line rate, so the line rate divides instead.
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/rnic/segmenter.h"

namespace bifrost::transport {

struct RogueBatch {
  Time t_enq;               // NIC clock read just before the batch was enqueued
  uint64_t wire_bytes = 0;  // B_sig in wire bytes (verb_wire_bytes summed over its verbs)
  Rate rate_limit;          // the limit in force when enqueued; 0 = unlimited
};

// B_sig / rate_limit, rounded up to the picosecond as the limiter rounds; the line rate when
// the batch was not limited.
Time batch_serialization(const RogueBatch& batch, Rate line_rate);

// Wire bytes a verb of `length` bytes puts through the rate limiter of the QP that sends its
// data: its request packets on `type` (a READ: the peer's response packets, which the peer's
// limiter meters), each Ethernet frame without FCS, exactly as the segmenter builds them
// (RETH on a WRITE's first packet, ImmDt on the last). Bifrost's SR extension, which only the
// selective recovery engines add, is not counted. Throws Error for a bad MTU or length.
uint64_t verb_wire_bytes(rnic::QpType type, rnic::WrOpcode opcode, uint64_t length, uint32_t mtu);

// A sample below zero (clock error, a rate limit slower than the NIC really sent) is zero.
inline Time clamp_rtt(Time rtt) {
  return rtt < Time::zero() ? Time::zero() : rtt;
}

}  // namespace bifrost::transport
