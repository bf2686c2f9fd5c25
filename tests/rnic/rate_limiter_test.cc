#include "bifrost/rnic/rate_limiter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bifrost/core/rng.h"
#include "support/error_message.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

constexpr RateLimiterConfig kNoBurst{.change_delay = Bytes(0), .burst = Bytes(0)};

// Sends `count` packets of `bytes` as fast as the limiter allows, from time zero; returns the
// start times.
std::vector<Time> send_greedily(RateLimiter& limiter, int count, uint32_t bytes) {
  std::vector<Time> starts;
  for (int i = 0; i < count; ++i) {
    const Time start = limiter.next_send_time();
    limiter.on_send(start, bytes);
    starts.push_back(start);
  }
  return starts;
}

// Packets of `bytes` the limiter lets start at `now` itself.
int packets_at_once(RateLimiter& limiter, Time now, uint32_t bytes) {
  int sent = 0;
  while (limiter.next_send_time() <= now && sent < 1000) {
    limiter.on_send(now, bytes);
    ++sent;
  }
  return sent;
}

TEST(RateLimiter, PacesAtExactSerializationTimes) {
  struct Case {
    Rate rate;
    uint32_t bytes;
    Time gap;
  };
  const Case cases[] = {{Rate::Gbps(10), 1000, Time::ns(800)},
                        {Rate::Gbps(40), 1000, Time::ns(200)},
                        {Rate::Gbps(100), 1000, Time::ns(80)},
                        {Rate::Gbps(100), 1500, Time::ns(120)},
                        {Rate::Gbps(40), 4096, Time::ps(819'200)},
                        // 8/3 ns per byte rounds up to 2667 ps on every packet.
                        {Rate::Gbps(3), 1, Time::ps(2'667)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} Gb/s, {} B", c.rate.gbps(), c.bytes));
    RateLimiter limiter(kNoBurst);
    limiter.set_rate(c.rate);
    EXPECT_EQ(limiter.rate(), c.rate);
    const std::vector<Time> starts = send_greedily(limiter, 100, c.bytes);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(starts[i], c.gap * i);
    EXPECT_EQ(limiter.next_send_time(), c.gap * 100);
  }
}

TEST(RateLimiter, LateSendRestartsTheClockFromNow) {
  RateLimiter limiter(kNoBurst);
  limiter.set_rate(Rate::Gbps(10));
  limiter.on_send(Time::zero(), 1000);
  EXPECT_EQ(limiter.next_send_time(), Time::ns(800));
  limiter.on_send(Time::us(5), 1000);  // idle: without burst no credit was saved
  EXPECT_EQ(limiter.next_send_time(), Time::us(5) + Time::ns(800));
}

TEST(RateLimiter, UnlimitedNeverHoldsAPacketBack) {
  RateLimiter limiter;
  EXPECT_FALSE(limiter.limited());
  EXPECT_EQ(limiter.rate(), RateLimiter::unlimited());
  EXPECT_EQ(limiter.next_send_time(), Time::zero());
  for (int i = 0; i < 10; ++i) limiter.on_send(Time::ns(i), 4096);
  EXPECT_EQ(limiter.next_send_time(), Time::ns(9));

  // A slow limit leaves a debt; going back to unlimited (either spelling) forgives it.
  for (Rate off : {RateLimiter::unlimited(), Rate::bps(0)}) {
    limiter.set_rate(Rate::Mbps(1));
    limiter.on_send(Time::us(1), 4096);
    EXPECT_GT(limiter.next_send_time(), Time::ms(30));
    limiter.set_rate(off);
    EXPECT_FALSE(limiter.limited());
    EXPECT_EQ(limiter.next_send_time(), Time::us(1));
  }
}

TEST(RateLimiter, BurstCapsTheCreditOfAnIdleLimiter) {
  // burst 4096 B at 10 Gb/s: an idle limiter lets 4 KB beyond the pace go back to back, so with
  // 1024-byte packets five start at once (the fifth is the one that crosses the allowance).
  RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(0), .burst = Bytes(4096)});
  limiter.set_rate(Rate::Gbps(10));
  EXPECT_EQ(packets_at_once(limiter, Time::zero(), 1024), 5);
  EXPECT_EQ(limiter.next_send_time(), Time::ps(819'200));
  // Idle for a millisecond, a long time: the credit is still capped at 4096 bytes.
  EXPECT_EQ(packets_at_once(limiter, Time::ms(1), 1024), 5);
  EXPECT_EQ(limiter.next_send_time(), Time::ms(1) + Time::ps(819'200));
  // Then steady pacing at one packet per 819.2 ns.
  limiter.on_send(limiter.next_send_time(), 1024);
  EXPECT_EQ(limiter.next_send_time(), Time::ms(1) + Time::ps(2 * 819'200));
  // An idle gap of half the burst time refills only half the burst: two 1024-byte packets
  // plus the crossing one.
  const Time later = limiter.next_send_time() + Time::ps(2 * 819'200);
  EXPECT_EQ(packets_at_once(limiter, later, 1024), 3);

  // Without a burst allowance an idle limiter sends exactly one packet at once.
  RateLimiter strict(kNoBurst);
  strict.set_rate(Rate::Gbps(10));
  EXPECT_EQ(packets_at_once(strict, Time::ms(1), 1024), 1);
}

TEST(RateLimiter, DefaultBurstIsOneFourKilobyteMtu) {
  EXPECT_EQ(RateLimiterConfig{}.burst, Bytes(4096));
  EXPECT_EQ(RateLimiterConfig{}.change_delay, Bytes(0));
  EXPECT_EQ(kRogueRateChangeDelay, Bytes(160'000));
}

TEST(RateLimiter, ChangeTakesEffectAfterExactlyChangeDelayBytes) {
  RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(3000), .burst = Bytes(0)});
  // Even the first limit waits: three 1000-byte packets go unlimited, the fourth is paced.
  limiter.set_rate(Rate::Gbps(10));
  EXPECT_FALSE(limiter.limited());
  EXPECT_EQ(limiter.pending_rate(), Rate::Gbps(10));
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(3000));
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(limiter.limited());
    limiter.on_send(Time::ns(i), 1000);
  }
  EXPECT_EQ(limiter.rate(), Rate::Gbps(10));
  EXPECT_EQ(limiter.pending_rate(), std::nullopt);
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(0));
  limiter.on_send(Time::ns(2), 1000);
  EXPECT_EQ(limiter.next_send_time(), Time::ns(802));
}

TEST(RateLimiter, PacketCrossingTheBoundaryIsChargedAtTheOldRate) {
  RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(3000), .burst = Bytes(0)});
  limiter.set_rate(Rate::Gbps(10));
  for (int i = 0; i < 3; ++i) limiter.on_send(Time::zero(), 1000);
  ASSERT_EQ(limiter.rate(), Rate::Gbps(10));
  const Time t0 = limiter.next_send_time();
  limiter.set_rate(Rate::Gbps(40));
  // 1200-byte packets: the third one spans bytes 2400..3600 and crosses the 3000-byte mark.
  // 1200 B take 960 ns at 10 Gb/s and 240 ns at 40 Gb/s.
  const std::vector<Time> starts = send_greedily(limiter, 5, 1200);
  EXPECT_EQ(starts[0], t0);
  EXPECT_EQ(starts[1], t0 + Time::ns(960));
  EXPECT_EQ(starts[2], t0 + Time::ns(1920));
  EXPECT_EQ(starts[3], t0 + Time::ns(2880));  // the crossing packet took the old 960 ns
  EXPECT_EQ(starts[4], t0 + Time::ns(3120));  // the first packet after it: 240 ns
  EXPECT_EQ(limiter.rate(), Rate::Gbps(40));
}

TEST(RateLimiter, PendingCountdownIsVisible) {
  RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(3000), .burst = Bytes(0)});
  limiter.set_rate(Rate::Gbps(10));
  limiter.on_send(Time::zero(), 1200);
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(1800));
  limiter.on_send(Time::zero(), 1200);
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(600));
  EXPECT_EQ(limiter.pending_rate(), Rate::Gbps(10));
  limiter.on_send(Time::zero(), 1200);
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(0));
  EXPECT_EQ(limiter.pending_rate(), std::nullopt);
}

TEST(RateLimiter, NewerRequestReplacesPendingWithoutRestartingTheCount) {
  RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(3000), .burst = Bytes(0)});
  limiter.set_rate(Rate::Gbps(40));
  limiter.on_send(Time::zero(), 1000);
  limiter.set_rate(Rate::Gbps(20));
  EXPECT_EQ(limiter.pending_rate(), Rate::Gbps(20));
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(2000));
  limiter.on_send(Time::zero(), 2000);
  EXPECT_EQ(limiter.rate(), Rate::Gbps(20));  // the 40 Gb/s request never took effect
  // A request after the change starts a new full countdown.
  limiter.set_rate(Rate::Gbps(10));
  EXPECT_EQ(limiter.bytes_until_change(), Bytes(3000));
  EXPECT_EQ(limiter.rate(), Rate::Gbps(20));
}

TEST(RateLimiter, TransmittedBytesCountEveryPacketAcrossRateChanges) {
  // RoGUE's hold-off: H bytes transmitted after a change, read from this counter.
  RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(3000), .burst = Bytes(0)});
  EXPECT_EQ(limiter.transmitted(), Bytes(0));
  limiter.on_send(Time::zero(), 1500);  // unlimited packets count too
  limiter.set_rate(Rate::Gbps(10));
  const Bytes at_change = limiter.transmitted();
  EXPECT_EQ(at_change, Bytes(1500));
  send_greedily(limiter, 4, 1000);  // three before the change holds, one after
  EXPECT_EQ(limiter.rate(), Rate::Gbps(10));
  EXPECT_EQ(limiter.transmitted() - at_change, Bytes(4000));
  limiter.set_rate(RateLimiter::unlimited());
  limiter.on_send(Time::us(10), 64);
  EXPECT_EQ(limiter.transmitted(), Bytes(5564));  // never reset by a change
}

TEST(RateLimiter, ZeroDelayAppliesAtOnceAndNegativeRatesAreRejected) {
  RateLimiter limiter(kNoBurst);
  limiter.set_rate(Rate::Gbps(25));
  EXPECT_EQ(limiter.rate(), Rate::Gbps(25));
  EXPECT_EQ(limiter.pending_rate(), std::nullopt);
  EXPECT_EQ(testing::error_of([&] { limiter.set_rate(Rate::bps(-5)); }),
            "rate limit -5 bit/s is negative: use a positive rate, or 0 for unlimited");
  EXPECT_EQ(limiter.rate(), Rate::Gbps(25));
}

TEST(RateLimiterBank, QpsOfOneClassShareALimiter) {
  RateLimiterBank bank(kConnectX3ProLimiters, kNoBurst);
  ASSERT_EQ(bank.size(), 8u);
  bank.limiter(3).set_rate(Rate::Gbps(10));
  bank.limiter(4).set_rate(Rate::Gbps(10));
  // Two QPs of priority 3 take turns on limiter 3: together they get 10 Gb/s.
  RateLimiter& class3 = bank.limiter(3);
  class3.on_send(Time::zero(), 1000);                 // QP A
  EXPECT_EQ(class3.next_send_time(), Time::ns(800));  // QP B must wait for A's charge
  class3.on_send(class3.next_send_time(), 1000);      // QP B
  EXPECT_EQ(class3.next_send_time(), Time::ns(1600));
  // Priority 4 has its own clock, untouched by class 3's traffic.
  EXPECT_EQ(bank.limiter(4).next_send_time(), Time::zero());
  EXPECT_FALSE(bank.limiter(0).limited());
  const RateLimiterBank& view = bank;
  EXPECT_EQ(view.limiter(3).next_send_time(), Time::ns(1600));
}

TEST(RateLimiterBank, RejectsBadIndexAndEmptyBank) {
  RateLimiterBank bank;
  EXPECT_EQ(testing::error_of([&] { bank.limiter(8); }),
            "rate limiter 8 does not exist: the bank has limiters 0..7");
  EXPECT_EQ(testing::error_of([] { RateLimiterBank(0); }),
            "a rate limiter bank needs at least one limiter");
}

// GCRA bound: for any packets i < j sent when the limiter allowed, the serialization time of
// packets i..j-1 at the rate is at most the time between their starts plus the burst time.
// Checked over random sizes, rates, bursts and idle gaps.
TEST(RateLimiterProperty, NeverExceedsRatePlusBurst) {
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    RandomStream rng(seed, "rate-limiter-property");
    const Rate rate = Rate::Mbps(static_cast<int64_t>(rng.uniform_int(100, 200'000)));
    const Bytes burst(rng.uniform_int(0, 3) == 0 ? 0 : rng.uniform_int(1, 20'000));
    RateLimiter limiter(RateLimiterConfig{.change_delay = Bytes(0), .burst = burst});
    limiter.set_rate(rate);
    std::vector<Time> starts;
    std::vector<Time> charges;
    Time now = Time::ns(static_cast<int64_t>(rng.uniform_int(0, 1000)));
    for (int k = 0; k < 150; ++k) {
      if (rng.bernoulli(0.2)) now += Time::ns(static_cast<int64_t>(rng.uniform_int(0, 20'000)));
      const Time allowed = limiter.next_send_time();
      ASSERT_GE(allowed, starts.empty() ? Time::zero() : starts.back());
      now = std::max(now, allowed);
      const auto bytes = static_cast<uint32_t>(rng.uniform_int(1, 9000));
      limiter.on_send(now, bytes);
      starts.push_back(now);
      charges.push_back(serialization_time(Bytes(bytes), rate));
    }
    const Time tau = serialization_time(burst, rate);
    for (std::size_t i = 0; i < starts.size(); ++i) {
      Time served;
      for (std::size_t j = i + 1; j < starts.size(); ++j) {
        served += charges[j - 1];
        ASSERT_LE(served, starts[j] - starts[i] + tau) << "packets " << i << ".." << j;
      }
    }
  }
}

}  // namespace
}  // namespace bifrost::rnic
