#pragma once
// What RoGUE's batch RTT estimators (§3.3, §3.4) know of a batch when it is enqueued, and the
// time its own bytes take at the rate limit, B_sig / rate_limit, which both estimators subtract
// so that a sample is queueing and path delay, not the NIC serialising the batch.
//
// B_sig is counted in *wire* bytes, the unit the NIC's rate limiter meters (the Ethernet frame
// without FCS, rnic/device_data_path.cc): a batch's verbs converted with verb_wire_bytes, so the
// subtracted time is exactly what the limiter spends on them. With no limit in force the NIC
// sends at line rate, so the line rate divides instead, and the line also carries what the
// limiter does not meter: each frame's FCS, preamble and inter-frame gap. Leaving those out
// undercounts a 64 KiB batch by about 0.6 us at 10 Gb/s, and because the RC estimator starts a
// batch where the previous one's sample says it did, that error compounds batch after batch:
// back-to-back samples then grow without bound and Vegas sees a queue that is not there.
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/rnic/segmenter.h"

namespace bifrost::transport {

// Bytes a frame costs on the line beyond what the limiter meters: FCS 4, preamble and start
// delimiter 8, inter-frame gap 12 (net/frame.h counts the same for the simulated links).
inline constexpr uint64_t kLineBytesPerFrameBeyondMetered = 24;

struct RogueBatch {
  Time t_enq;               // NIC clock read just before the batch was enqueued
  uint64_t wire_bytes = 0;  // B_sig in wire bytes (verb_wire_bytes summed over its verbs)
  Rate rate_limit;          // the limit in force when enqueued; 0 = unlimited
  uint64_t packets = 0;     // frames of the batch (their line overhead is not metered)
};

// The time the NIC needs to send the batch: B_sig / rate_limit, rounded up to the picosecond
// as the limiter rounds, or the line time of its frames (wire bytes plus
// kLineBytesPerFrameBeyondMetered each, at the line rate) when that is longer or no limit is in
// force.
Time batch_serialization(const RogueBatch& batch, Rate line_rate);

// The time the NIC needs for a batch that starts on an idle limiter holding its whole burst
// credit (`burst`, rnic::RateLimiterConfig::burst; software sets it, as ibverbs' max_burst_sz):
// the credit's bytes go at the line rate, the rest at the limit, and the last packet is not
// followed by its pacing gap (a batch behind another waits that gap out, so batch_serialization
// is exact there). Packets are taken as of equal size. Unlimited: the line time.
Time idle_batch_serialization(const RogueBatch& batch, Rate line_rate, Bytes burst);

// Wire bytes a verb of `length` bytes puts through the rate limiter of the QP that sends its
// data: its request packets on `type` (a READ: the peer's response packets, which the peer's
// limiter meters), each Ethernet frame without FCS, exactly as the segmenter builds them
// (RETH on a WRITE's first packet, ImmDt on the last). Bifrost's SR extension, which only the
// selective recovery engines add, is not counted. Throws Error for a bad MTU or length.
uint64_t verb_wire_bytes(rnic::QpType type, rnic::WrOpcode opcode, uint64_t length, uint32_t mtu);
// The frames those bytes are in (a READ: its responses).
uint64_t verb_packets(rnic::WrOpcode opcode, uint64_t length, uint32_t mtu);

// A sample below zero (clock error, a rate limit slower than the NIC really sent) is zero.
inline Time clamp_rtt(Time rtt) {
  return rtt < Time::zero() ? Time::zero() : rtt;
}

}  // namespace bifrost::transport
