// RoGUE's batch RTT estimators alone, on scripted NIC-clock timelines, exact to the picosecond:
// RC (§3.3) when the batch's enqueue time decides its start and when the previous batch's
// completion does, UC (§3.4) with echoes, losses shown by a later echo, and the timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
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

// A long stream of equal batches on one QP over a path of constant RTT `rtt`, kept at `window`
// outstanding (two: RoGUE's floor, §3.1): software posts when a completion comes in, and the
// NIC sends a batch from max(its post, the previous batch's end). A batch behind another takes
// batch_serialization, one that finds the NIC idle idle_batch_serialization (the limiter's
// `burst` credit and no trailing pacing gap), each plus the NIC's own `error`; its completion
// comes `rtt` after its last byte. With `rtt` below the batch's time the NIC is never idle, so
// §3.3 chains every sample on the one before (while the sample is below the time the window
// covers: beyond that the batch's t_enq is the later start). The anchored estimator's batch
// that is due waits for the outstanding ones, as BatchWindow holds it. Returns every sample.
std::vector<Time> stream_samples(RogueRcRttEstimator& rc, const RogueBatch& shape, Time error,
                                 Time rtt, int count, std::size_t window = 2,
                                 Bytes burst = Bytes(0)) {
  std::deque<Time> completions;
  std::vector<Time> samples;
  Time nic_free = Time::zero();
  int posted = 0;
  const auto post = [&](Time now) {
    while (posted < count && completions.size() < window &&
           (!rc.anchor_due() || completions.empty())) {
      RogueBatch b = shape;
      b.t_enq = now;
      rc.on_enqueue(b);
      const bool idle = now >= nic_free;
      nic_free = std::max(now, nic_free) + error +
                 (idle ? idle_batch_serialization(b, kLine, burst) : batch_serialization(b, kLine));
      completions.push_back(nic_free + rtt);
      ++posted;
    }
  };
  post(Time::zero());
  while (!completions.empty()) {
    const Time now = completions.front();
    completions.pop_front();
    samples.push_back(rc.on_completion(now));
    post(now);
  }
  return samples;
}

Time max_error(const std::vector<Time>& samples, Time truth) {
  Time worst = Time::zero();
  for (const Time s : samples) worst = std::max(worst, s > truth ? s - truth : truth - s);
  return worst;
}

// Upward: an unpaced stream on an empty link, its window 64 batches (Vegas sees no queue), whose
// NIC spends 0.1 us per 50 us batch more than B_sig / line rate (a WQE fetch, a DMA start:
// anything the formula does not subtract). §3.3's chain adds it to every sample: 2 ms after
// 20,000 batches (one second) with a 10 us path; anchored every k batches, every sample stays
// within k x 0.1 us of the path's RTT.
TEST(RogueRcRtt, AnUnpacedStreamDriftsUpAsWrittenAndStaysWithinTheAnchorBound) {
  const RogueBatch shape = batch(Time::zero(), 62'500);  // 50 us at 10 Gb/s
  ASSERT_EQ(batch_serialization(shape, kLine), us(50));
  const Time error = Time::ns(100);
  const Time rtt = us(10);
  constexpr int kBatches = 20'000;

  RogueRcRttEstimator written(kLine);
  const std::vector<Time> drift = stream_samples(written, shape, error, rtt, kBatches, 64);
  EXPECT_GT(drift.back(), Time::ms(1));  // 10 us + 20,000 x 0.1 us
  EXPECT_FALSE(written.anchor_due());

  for (const uint32_t k : {1u, 8u, 32u}) {
    RogueRcRttEstimator anchored(kLine, k, Bytes(0));
    const std::vector<Time> samples = stream_samples(anchored, shape, error, rtt, kBatches, 64);
    ASSERT_EQ(samples.size(), static_cast<std::size_t>(kBatches));
    EXPECT_LE(max_error(samples, rtt), error * k) << k;
    EXPECT_GE(anchored.anchors(), static_cast<uint64_t>(kBatches / k)) << k;
  }
  // The idle-start floor does not stop it.
  RogueRcRttEstimator idle_floor(kLine, true);
  EXPECT_GT(stream_samples(idle_floor, shape, error, rtt, kBatches, 64).back(), Time::ms(1));
}

// Downward: a stream paced at 8 Gb/s (five 2,000-byte frames a batch, 10 us) whose limiter runs
// 0.5 % fast (0.05 us a batch). §3.3's chain loses that per batch, reaches zero after about 100
// batches (a 5 us path) and stays there: zero is absorbing. Anchored, the samples stay within
// k x 0.05 us of the path's RTT (the floor: no chained sample below the least anchored one).
TEST(RogueRcRtt, APacedStreamDriftsToAnAbsorbingZeroAsWrittenAndNotAnchored) {
  RogueBatch shape = batch(Time::zero(), 10'000, Rate::Gbps(8));
  shape.packets = 5;
  ASSERT_EQ(batch_serialization(shape, kLine), us(10));
  const Time error = -Time::ns(50);
  const Time rtt = us(5);
  constexpr int kBatches = 100'000;  // one second

  RogueRcRttEstimator written(kLine);
  const std::vector<Time> drift = stream_samples(written, shape, error, rtt, kBatches);
  for (std::size_t i = 200; i < drift.size(); ++i) ASSERT_EQ(drift[i], Time::zero()) << i;

  for (const uint32_t k : {1u, 8u, 32u}) {
    RogueRcRttEstimator anchored(kLine, k, Bytes(0));
    const std::vector<Time> samples = stream_samples(anchored, shape, error, rtt, kBatches);
    EXPECT_LE(max_error(samples, rtt), Time::ns(50) * k) << k;
    if (k > 1) {  // k = 1: every batch is an anchor, none is floored
      EXPECT_GT(anchored.floored(), 0u) << k;
    }
  }
}

// A batch on an idle limiter: the credit goes at the line rate and the last packet's pacing gap
// is not waited for. Five 2,000-byte frames at 8 Gb/s: 2 us each paced, 1.6192 us on the line.
TEST(RogueBatch, AnIdleLimiterSendsItsCreditAtTheLineRate) {
  RogueBatch b = batch(Time::zero(), 10'000, Rate::Gbps(8));
  b.packets = 5;
  EXPECT_EQ(batch_serialization(b, kLine), us(10));
  EXPECT_EQ(idle_batch_serialization(b, kLine, Bytes(0)), Time::ps(9'619'200));  // 4 x 2 + 1.6192
  EXPECT_EQ(idle_batch_serialization(b, kLine, Bytes(4000)), Time::ps(8'096'000));  // the line's
  EXPECT_EQ(idle_batch_serialization(b, kLine, Bytes(1000)), Time::ps(8'619'200));  // 7 + 1.6192
  b.rate_limit = Rate::bps(0);
  EXPECT_EQ(idle_batch_serialization(b, kLine, Bytes(4000)), Time::ps(8'096'000));
}

// Five 2,000-byte frames at 8 Gb/s (10 us paced; 9.6192 us from an idle limiter without credit)
// over a 20 us path. Batch 0 (an anchor) leaves 0-9.6192, batch 1 behind it until 19.6192, and
// batch 2, posted at batch 0's completion, finds the NIC idle. With k = 3, batch 3 is the anchor.
TEST(RogueRcRtt, AnAnchorIsDueAfterKMinusOneChainedBatches) {
  EXPECT_THROW(RogueRcRttEstimator(kLine, 0u, Bytes(0)), Error);
  RogueRcRttEstimator rc(kLine, 3u, Bytes(0));
  const auto at = [](Time t_enq) {
    RogueBatch b = batch(t_enq, 10'000, Rate::Gbps(8));
    b.packets = 5;
    return b;
  };
  const Time idle = Time::ps(9'619'200);
  EXPECT_FALSE(rc.anchor_due());
  rc.on_enqueue(at(us(0)));  // none outstanding: an anchor
  rc.on_enqueue(at(us(1)));  // chained
  EXPECT_EQ(rc.anchors(), 1u);
  EXPECT_FALSE(rc.anchor_due());
  EXPECT_EQ(rc.on_completion(idle + us(20)), us(20));  // from t_enq, the idle time subtracted
  rc.on_enqueue(at(idle + us(20)));                    // chained: the next is the 3rd
  EXPECT_TRUE(rc.anchor_due());
  EXPECT_EQ(rc.on_completion(idle + us(30)), us(20));  // t_start = batch 0's last byte
  // Batch 2 found the NIC idle: it took 9.6192 us, but §3.3 subtracts 10, 0.3808 too much; the
  // floor (batch 0's 20 us) lifts it.
  EXPECT_EQ(rc.on_completion(idle * 2 + us(40)), us(20));
  EXPECT_EQ(rc.floored(), 1u);
  EXPECT_TRUE(rc.anchor_due());  // still: no batch has been posted since
  rc.on_enqueue(at(us(70)));
  EXPECT_EQ(rc.anchors(), 2u);
  EXPECT_FALSE(rc.anchor_due());
  EXPECT_EQ(rc.on_completion(idle + us(90)), us(20));
  // The estimator as written is never due.
  RogueRcRttEstimator written(kLine);
  for (int i = 0; i < 5; ++i) written.on_enqueue(batch(us(i), 1000));
  EXPECT_FALSE(written.anchor_due());
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
