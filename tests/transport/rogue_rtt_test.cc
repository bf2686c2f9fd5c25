// RoGUE's batch RTT estimators alone, on scripted NIC-clock timelines, exact to the picosecond:
// RC (§3.3) when the batch's enqueue time decides its start and when the previous batch's
// completion does, UC (§3.4) with echoes, losses shown by a later echo, and the timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/transport/rtt/rogue_batch.h"
#include "bifrost/transport/rtt/rogue_rc_estimator.h"
#include "bifrost/transport/rtt/rogue_uc_estimator.h"
#include "bifrost/wire/frame.h"

namespace bifrost::transport {
namespace {

using rnic::QpType;
using rnic::WrOpcode;

const Rate kLine = Rate::Gbps(10);

Time us(int64_t whole, int64_t ps = 0) {
  return Time::us(whole) + Time::ps(ps);
}

RogueBatch batch(Time t_enq, uint64_t wire_bytes, Rate limit = Rate::bps(0)) {
  return RogueBatch{.t_enq = t_enq, .wire_bytes = wire_bytes, .rate_limit = limit};
}

TEST(RogueBatch, SerialisationIsWireBytesAtTheLimitOrTheLineRate) {
  EXPECT_EQ(batch_serialization(batch(Time::zero(), 10'000, Rate::Gbps(8)), kLine), Time::us(10));
  EXPECT_EQ(batch_serialization(batch(Time::zero(), 10'000), kLine), Time::us(8));  // unlimited
  // 80,008 bits at 3 Gb/s = 26,669,333.3 ps, rounded up as the limiter rounds.
  EXPECT_EQ(batch_serialization(batch(Time::zero(), 10'001, Rate::Gbps(3)), kLine),
            Time::ps(26'669'334));
}

TEST(RogueBatch, TheLineAddsEachFramesUnmeteredBytes) {
  // 10 frames of 1,000 metered bytes: 10,240 bytes on the line, 8,192 ns at 10 Gb/s.
  RogueBatch b = batch(Time::zero(), 10'000);
  b.packets = 10;
  EXPECT_EQ(batch_serialization(b, kLine), Time::ns(8'192));
  // A limit below the line: the limiter's metered time (10 us at 8 Gb/s) is the longer one.
  b.rate_limit = Rate::Gbps(8);
  EXPECT_EQ(batch_serialization(b, kLine), Time::us(10));
  // A limit the line cannot keep with the framing (9.9 Gb/s metered): the line's time.
  b.rate_limit = Rate::Mbps(9'900);
  EXPECT_EQ(batch_serialization(b, kLine), Time::ns(8'192));
  EXPECT_EQ(verb_packets(WrOpcode::rdma_write, 10'000, 4096), 3u);
  EXPECT_EQ(verb_packets(WrOpcode::rdma_write, 0, 4096), 1u);
}

TEST(RogueBatch, VerbWireBytesAreTheFramesTheSegmenterBuilds) {
  // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16 first, + ImmDt 4 last) + payload + ICRC 4.
  EXPECT_EQ(verb_wire_bytes(QpType::rc, WrOpcode::rdma_write, 4096, 4096), 4170u);
  EXPECT_EQ(verb_wire_bytes(QpType::uc, WrOpcode::rdma_write_with_imm, 10'000, 4096),
            4170u + 4154u + 1870u);
  EXPECT_EQ(verb_wire_bytes(QpType::uc, WrOpcode::rdma_write_with_imm, 0, 4096), 78u);  // echo
  EXPECT_EQ(verb_wire_bytes(QpType::rc, WrOpcode::send, 3, 1024), 62u);  // one pad byte
  // READ: the peer's responses, AETH on the first and last.
  EXPECT_EQ(verb_wire_bytes(QpType::rc, WrOpcode::rdma_read, 10'000, 4096), 4158u + 4154u + 1870u);
  // Against the segmenter, packet by packet.
  for (const WrOpcode op : {WrOpcode::send, WrOpcode::send_with_imm, WrOpcode::rdma_write,
                            WrOpcode::rdma_write_with_imm}) {
    for (const uint64_t length : {0ull, 1ull, 2047ull, 2048ull, 2049ull, 65'536ull, 100'003ull}) {
      uint64_t sum = 0;
      rnic::segment(QpType::rc, rnic::SendWqe{.opcode = op, .length = length}, 2048, 0, 2,
                    [&](const wire::RoceHeaders& h, uint64_t, uint32_t payload) {
                      sum += wire::ethernet_frame_size(h, payload);
                    });
      EXPECT_EQ(verb_wire_bytes(QpType::rc, op, length, 2048), sum)
          << rnic::to_string(op) << " " << length;
    }
  }
}

TEST(RogueRcRtt, TheEnqueueTimeStartsABatchThatFindsTheNicIdle) {
  RogueRcRttEstimator rc(kLine);
  EXPECT_EQ(rc.on_enqueue(batch(us(100), 10'000, Rate::Gbps(8))), 0u);  // 10 us at 8 Gb/s
  EXPECT_EQ(rc.on_completion(us(135)), us(25));                         // 135 - 100 - 10
  // Enqueued long after: t_start = max(200, 135 - 25) = 200.
  EXPECT_EQ(rc.on_enqueue(batch(us(200), 10'000, Rate::Gbps(8))), 1u);
  EXPECT_EQ(rc.on_completion(us(236, 500'000)), us(26, 500'000));
  EXPECT_EQ(rc.outstanding(), 0u);
}

TEST(RogueRcRtt, ThePreviousCompletionStartsABatchQueuedBehindIt) {
  RogueRcRttEstimator rc(kLine);
  rc.on_enqueue(batch(us(200), 10'000, Rate::Gbps(8)));
  rc.on_enqueue(batch(us(201), 10'000));  // behind it, unlimited: 8 us at line rate
  EXPECT_EQ(rc.outstanding(), 2u);
  EXPECT_EQ(rc.on_completion(us(236, 500'000)), us(26, 500'000));  // t_start 200 (first)
  // t_start = max(201, 236.5 - 26.5 = 210) = 210: RTT = 245.000123 - 210 - 8.
  EXPECT_EQ(rc.on_completion(us(245, 123)), us(27, 123));
  EXPECT_THROW(rc.on_completion(us(300)), Error);
}

TEST(RogueRcRtt, ANegativeSampleIsZeroAndTheNextBatchStartsAtThatCompletion) {
  RogueRcRttEstimator rc(kLine);
  rc.on_enqueue(batch(us(0), 10'000, Rate::Gbps(1)));  // 80 us at 1 Gb/s ...
  rc.on_enqueue(batch(us(1), 10'000, Rate::Gbps(8)));
  EXPECT_EQ(rc.on_completion(us(50)), Time::zero());  // ... but done in 50: the NIC sent faster
  EXPECT_EQ(rc.on_completion(us(75)), us(15));        // t_start = max(1, 50 - 0): 75 - 50 - 10
  rc.restart();                                       // a QP switch: no previous completion
  rc.on_enqueue(batch(us(76), 10'000, Rate::Gbps(8)));
  EXPECT_EQ(rc.on_completion(us(100)), us(14));  // from its own t_enq
}

// Batches back to back at 8 Gb/s (10 us each), each enqueued 5 us before the NIC reaches it,
// over a path whose RTT is 20 us: batch k leaves from 10k to 10k + 10 and completes at 10k + 30.
// Batch 2's recorded limit says 1 Gb/s (80 us) but it left at 8 Gb/s, so its sample is
// negative. As §3.3 writes it, every later sample then reads zero; with the idle-start floor,
// batch 2 reads the floor (batch 0's 20 us, the only idle start) and the chain is exact again.
TEST(RogueRcRtt, AZeroIsAbsorbingAsWrittenAndTheIdleStartFloorStopsIt) {
  for (const bool floor : {false, true}) {
    RogueRcRttEstimator rc(kLine, floor);
    std::vector<Time> samples;
    for (int64_t k = 0; k < 8; ++k) {
      const Rate limit = k == 2 ? Rate::Gbps(1) : Rate::Gbps(8);
      rc.on_enqueue(batch(us(std::max<int64_t>(0, 10 * k - 5)), 10'000, limit));
      samples.push_back(rc.on_completion(us(10 * k + 30)));
    }
    EXPECT_EQ(samples[0], us(20));
    EXPECT_EQ(samples[1], us(20));
    if (floor) {
      for (std::size_t k = 2; k < samples.size(); ++k) EXPECT_EQ(samples[k], us(20)) << k;
      EXPECT_EQ(rc.floored(), 1u);
    } else {
      for (std::size_t k = 2; k < samples.size(); ++k) EXPECT_EQ(samples[k], Time::zero()) << k;
      EXPECT_EQ(rc.floored(), 0u);
    }
  }
}

TEST(RogueUcRtt, EchoesGiveSamplesFromThePreviousSendCompletionOrTheEnqueue) {
  RogueUcRttEstimator uc(kLine);
  EXPECT_EQ(uc.on_enqueue(batch(us(10), 10'000)), 0u);                 // 8 us at line rate
  EXPECT_EQ(uc.on_enqueue(batch(us(12), 10'000, Rate::Gbps(5))), 1u);  // 16 us
  uc.on_send_completion(0, us(18));
  uc.on_send_completion(1, us(34));
  EXPECT_EQ(uc.oldest_enqueue(), us(10));
  RogueUcEcho e = uc.on_echo(0, us(40), us(2));
  EXPECT_EQ(e.batch, 0u);
  EXPECT_EQ(e.rtt, us(20));  // 40 - 10 - 2 - 8
  EXPECT_EQ(e.losses, 0u);
  // Batch 1 went behind batch 0: t_start = max(12, t_sig0 = 18).
  e = uc.on_echo(1, us(57, 500'000), us(1, 500'000));
  EXPECT_EQ(e.rtt, us(22));  // 57.5 - 18 - 1.5 - 16
  // Batch 2 enqueued after batch 1 left: t_start = its t_enq.
  uc.on_enqueue(batch(us(100), 10'000));
  uc.on_send_completion(2, us(108));
  e = uc.on_echo(2, us(131, 7), us(1));
  EXPECT_EQ(e.rtt, us(22, 7));  // 131.000007 - 100 - 1 - 8
  EXPECT_EQ(uc.outstanding(), 0u);
  EXPECT_EQ(uc.oldest_enqueue(), std::nullopt);
}

TEST(RogueUcRtt, ADroppedEchoFollowedByALaterOneIsExactlyOneLoss) {
  RogueUcRttEstimator uc(kLine);
  for (int i = 0; i < 3; ++i) uc.on_enqueue(batch(us(10 * i), 1000));  // 0.8 us each
  for (int i = 0; i < 3; ++i) uc.on_send_completion(static_cast<uint64_t>(i), us(10 * i + 1));
  // Batch 0's echo is dropped; batch 1's arrives.
  RogueUcEcho e = uc.on_echo(1, us(30), Time::zero());
  EXPECT_EQ(e.losses, 1u);
  EXPECT_EQ(e.batch, 1u);
  EXPECT_EQ(e.rtt, Time::ps(19'200'000));  // t_start max(10, t_sig0 1) = 10: 30 - 10 - 0.8
  e = uc.on_echo(2, us(40), Time::zero());
  EXPECT_EQ(e.losses, 0u);
  // Batch 0's echo turning up late, and a repeated echo, are no sample and no loss.
  for (const uint32_t late : {0u, 1u, 2u}) {
    e = uc.on_echo(late, us(50), Time::zero());
    EXPECT_EQ(e.losses, 0u);
    EXPECT_EQ(e.batch, std::nullopt);
    EXPECT_EQ(e.rtt, std::nullopt);
  }
}

TEST(RogueUcRtt, AllEchoesLostLeaveTheTimeoutToTheCaller) {
  RogueUcRttEstimator uc(kLine);
  for (int i = 0; i < 3; ++i) uc.on_enqueue(batch(us(5 + i), 1000));
  EXPECT_EQ(uc.outstanding(), 3u);
  EXPECT_EQ(uc.oldest_enqueue(), us(5));
  EXPECT_EQ(uc.abandon_outstanding(), 3u);
  EXPECT_EQ(uc.outstanding(), 0u);
  EXPECT_EQ(uc.on_echo(2, us(100), Time::zero()).batch, std::nullopt);  // too late now
  // The probe after the timeout is sampled as usual.
  EXPECT_EQ(uc.on_enqueue(batch(us(200), 1000)), 3u);
  const RogueUcEcho e = uc.on_echo(3, us(220), Time::zero());
  EXPECT_EQ(e.losses, 0u);
  EXPECT_EQ(e.rtt, Time::ps(19'200'000));
}

TEST(RogueUcRtt, WireNumbersWrapAndAtMostAllButOneAreOutstanding) {
  RogueUcRttEstimator uc(kLine, 8);
  for (uint64_t i = 0; i < 300; ++i) {
    ASSERT_EQ(uc.on_enqueue(batch(us(static_cast<int64_t>(i)), 1000)), i);
    const RogueUcEcho e =
        uc.on_echo(uc.wire_sequence(i), us(static_cast<int64_t>(i) + 5), Time::zero());
    ASSERT_EQ(e.batch, i);
  }
  EXPECT_EQ(uc.wire_sequence(300), 44u);
  for (int i = 0; i < 255; ++i) uc.on_enqueue(batch(us(400), 1000));
  EXPECT_THROW(uc.on_enqueue(batch(us(400), 1000)), Error);
  const RogueUcEcho e = uc.on_echo(uc.wire_sequence(310), us(500), Time::zero());
  EXPECT_EQ(e.batch, 310u);
  EXPECT_EQ(e.losses, 10u);  // 300 .. 309
  EXPECT_THROW(RogueUcRttEstimator(kLine, 0), Error);
  EXPECT_THROW(RogueUcRttEstimator(kLine, 32), Error);
}

}  // namespace
}  // namespace bifrost::transport
