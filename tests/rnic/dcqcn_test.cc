#include "bifrost/rnic/cc/dcqcn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bifrost/core/rng.h"
#include "support/error_message.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

// Rc = (Rt + Rc) / 2 in whole bits per second, rounded up as the reaction point does.
Rate halfway(Rate rt, Rate rc) {
  return Rate::bps((rt.bits_per_second() + rc.bits_per_second() + 1) / 2);
}

// A configuration whose alpha does not decay between the CNPs of a test, so rates are exact.
DcqcnConfig steady_alpha() {
  DcqcnConfig c;
  c.alpha_update_period = Time::s(1000);
  return c;
}

TEST(DcqcnReactionPoint, UnlimitedUntilTheFirstCnp) {
  DcqcnReactionPoint rp;
  EXPECT_EQ(rp.rate(), Rate::Gbps(100));
  EXPECT_EQ(rp.next_timer(), Time::max());
  rp.on_bytes_sent(Time::us(5), 1'000'000);
  rp.advance(Time::ms(10));
  EXPECT_EQ(rp.rate(), Rate::Gbps(100));
  EXPECT_DOUBLE_EQ(rp.alpha(), 1.0);
}

TEST(DcqcnReactionPoint, FirstCnpHalvesTheRateWithAlphaOne) {
  DcqcnReactionPoint rp;
  rp.on_cnp(Time::us(10));
  EXPECT_EQ(rp.rate(), Rate::Gbps(50));
  EXPECT_EQ(rp.target_rate(), Rate::Gbps(100));
  // alpha = (1 - g) * 1 + g = 1.
  EXPECT_DOUBLE_EQ(rp.alpha(), 1.0);
  EXPECT_EQ(rp.next_timer(), Time::us(310));  // the 300 us increase timer
}

TEST(DcqcnReactionPoint, AlphaDecaysOncePerPeriodWithoutCnps) {
  DcqcnConfig c;
  c.g = 1.0 / 16;
  c.alpha_update_period = Time::us(55);
  DcqcnReactionPoint rp(c);
  rp.on_cnp(Time::zero());
  rp.advance(Time::us(54));
  EXPECT_DOUBLE_EQ(rp.alpha(), 1.0);
  rp.advance(Time::us(55));
  EXPECT_DOUBLE_EQ(rp.alpha(), 15.0 / 16);
  rp.advance(Time::us(55 * 10 + 3));
  EXPECT_NEAR(rp.alpha(), std::pow(15.0 / 16, 10), 1e-15);

  // The next CNP uses the decayed alpha, then raises it by g.
  const double a = std::pow(15.0 / 16, 10);
  const Rate before = rp.rate();
  rp.on_cnp(Time::us(553));
  EXPECT_EQ(rp.target_rate(), before);
  EXPECT_EQ(rp.rate().bits_per_second(),
            static_cast<int64_t>(static_cast<double>(before.bits_per_second()) * (1 - a / 2)));
  EXPECT_NEAR(rp.alpha(), (1 - 1.0 / 16) * a + 1.0 / 16, 1e-15);
}

TEST(DcqcnReactionPoint, FastRecoveryClosesHalfTheGapForFiveStages) {
  const DcqcnConfig c = steady_alpha();
  DcqcnReactionPoint rp(c);
  rp.on_cnp(Time::zero());
  Rate rc = rp.rate();
  const Rate rt = rp.target_rate();
  for (int stage = 1; stage <= 5; ++stage) {
    rp.advance(c.increase_period * stage);
    rc = halfway(rt, rc);
    EXPECT_EQ(rp.target_rate(), rt) << stage;
    EXPECT_EQ(rp.rate(), rc) << stage;
  }
  // After F = 5 stages Rc is within 1/32 of the original gap below Rt.
  EXPECT_EQ(rp.rate(), Rate::Gbps(100) - Rate::Gbps(50) / 32);
}

TEST(DcqcnReactionPoint, AdditiveThenHyperIncrease) {
  DcqcnConfig c = steady_alpha();
  c.increase_bytes = 1'000'000;
  DcqcnReactionPoint rp(c);
  // Two decreases so that Rt is below line rate and increases show.
  rp.on_cnp(Time::zero());
  rp.on_cnp(c.rate_reduce_monitor_period);
  const Time t0 = c.rate_reduce_monitor_period;
  ASSERT_EQ(rp.target_rate(), Rate::Gbps(50));
  ASSERT_EQ(rp.rate(), Rate::Gbps(25));
  Rate rt = rp.target_rate();
  Rate rc = rp.rate();
  const auto timer_event = [&](int k) { rp.advance(t0 + c.increase_period * k); };

  for (int k = 1; k <= 5; ++k) {  // timer stages 1..5: fast recovery
    timer_event(k);
    rc = halfway(rt, rc);
  }
  EXPECT_EQ(rp.rate(), rc);
  timer_event(6);  // timer stage 6 > F, byte stage 0: additive increase
  rt = rt + Rate::Mbps(5);
  rc = halfway(rt, rc);
  EXPECT_EQ(rp.target_rate(), rt);
  EXPECT_EQ(rp.rate(), rc);

  // Six byte stages at once: the first five are additive (timer stage is past F), the sixth
  // makes both stages exceed F: hyper increase with i = min(6, 6) - 5 = 1.
  rp.on_bytes_sent(t0 + c.increase_period * 6 + Time::us(1), 6 * c.increase_bytes);
  for (int k = 1; k <= 5; ++k) {
    rt = rt + Rate::Mbps(5);
    rc = halfway(rt, rc);
  }
  rt = rt + Rate::Mbps(50);
  rc = halfway(rt, rc);
  EXPECT_EQ(rp.target_rate(), rt);
  EXPECT_EQ(rp.rate(), rc);

  timer_event(7);  // stages (7, 6): i = 1
  rt = rt + Rate::Mbps(50);
  rc = halfway(rt, rc);
  EXPECT_EQ(rp.target_rate(), rt);
  rp.on_bytes_sent(t0 + c.increase_period * 7 + Time::us(1), c.increase_bytes);  // (7, 7): i = 2
  rt = rt + Rate::Mbps(100);
  rc = halfway(rt, rc);
  EXPECT_EQ(rp.target_rate(), rt);
  EXPECT_EQ(rp.rate(), rc);
}

TEST(DcqcnReactionPoint, ByteCounterDrivesIncreasesAndCarriesRemainders) {
  DcqcnConfig c = steady_alpha();
  c.increase_period = Time::s(1);  // the timer stays out of the way
  DcqcnReactionPoint rp(c);
  rp.on_cnp(Time::zero());
  Rate rc = rp.rate();
  const Rate rt = rp.target_rate();
  rp.on_bytes_sent(Time::us(1), c.increase_bytes - 1);
  EXPECT_EQ(rp.rate(), rc);
  rp.on_bytes_sent(Time::us(2), 1);  // exactly B bytes since the decrease
  rc = halfway(rt, rc);
  EXPECT_EQ(rp.rate(), rc);
  rp.on_bytes_sent(Time::us(3), c.increase_bytes / 2);
  rp.on_bytes_sent(Time::us(4), c.increase_bytes / 2 + 1);  // B + 1 bytes: one more event
  rc = halfway(rt, rc);
  EXPECT_EQ(rp.rate(), rc);

  // A CNP resets the byte counter: bytes sent before it do not count after it.
  rp.on_bytes_sent(Time::us(5), c.increase_bytes - 1);
  rp.on_cnp(Time::us(10));
  rc = rp.rate();
  rp.on_bytes_sent(Time::us(11), 1);
  EXPECT_EQ(rp.rate(), rc);
}

TEST(DcqcnReactionPoint, CnpsInsideTheMonitorPeriodFoldIntoOneDecrease) {
  const DcqcnConfig c = steady_alpha();  // 4 us monitor period
  DcqcnReactionPoint rp(c);
  rp.on_cnp(Time::zero());
  EXPECT_EQ(rp.rate(), Rate::Gbps(50));
  rp.on_cnp(Time::us(1));
  rp.on_cnp(Time::us(2));
  EXPECT_EQ(rp.rate(), Rate::Gbps(50));
  EXPECT_EQ(rp.next_timer(), Time::us(4));
  rp.advance(Time::us(4));
  EXPECT_EQ(rp.rate(), Rate::Gbps(25));  // one decrease for both CNPs
  EXPECT_EQ(rp.target_rate(), Rate::Gbps(50));
  rp.advance(Time::us(100));
  EXPECT_EQ(rp.rate(), Rate::Gbps(25));
  EXPECT_EQ(rp.next_timer(), Time::us(304));  // the increase timer restarted at 4 us
}

TEST(DcqcnReactionPoint, RatesStayBetweenMinimumAndLineRate) {
  DcqcnConfig c = steady_alpha();
  c.line_rate = Rate::Gbps(10);
  c.min_rate = Rate::Mbps(100);
  c.additive_increase = Rate::Gbps(3);
  c.hyper_increase = Rate::Gbps(7);
  c.fast_recovery_stages = 1;
  c.increase_bytes = 1000;
  DcqcnReactionPoint rp(c);
  for (int i = 0; i < 20; ++i) rp.on_cnp(c.rate_reduce_monitor_period * i);
  EXPECT_EQ(rp.rate(), Rate::Mbps(100));
  const Time t = c.rate_reduce_monitor_period * 20;
  for (int i = 1; i < 200; ++i) {
    rp.on_bytes_sent(t + c.increase_period * i, 1000 * static_cast<uint64_t>(i));
    rp.advance(t + c.increase_period * i);
    EXPECT_LE(rp.rate(), Rate::Gbps(10));
    EXPECT_LE(rp.target_rate(), Rate::Gbps(10));
    EXPECT_GE(rp.rate(), Rate::Mbps(100));
  }
  EXPECT_EQ(rp.rate(), Rate::Gbps(10));
  EXPECT_EQ(rp.next_timer(), Time::max());  // back at line rate: nothing left to schedule
}

TEST(DcqcnReactionPoint, AdvanceGranularityDoesNotChangeTheResult) {
  // Property: the same CNPs and sends, with advance() called only when events happen, at random
  // extra times, or at every microsecond (a boundary of every period here), give the same
  // state at every observation.
  DcqcnConfig c;
  c.line_rate = Rate::Gbps(25);
  c.increase_period = Time::us(20);
  c.alpha_update_period = Time::us(3);
  c.g = 1.0 / 64;
  c.increase_bytes = 20'000;
  for (const uint64_t seed : testing::property_seeds()) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomStream rng(seed, "dcqcn-granularity");
    struct Event {
      Time at;
      bool cnp;
      uint64_t bytes;
    };
    std::vector<Event> events;
    Time t = Time::zero();
    for (int i = 0; i < 300; ++i) {
      t += Time::ns(static_cast<int64_t>(rng.uniform_int(0, 40'000)));
      events.push_back({t, rng.bernoulli(0.1), rng.uniform_int(0, 60'000)});
    }
    DcqcnReactionPoint sparse(c);
    DcqcnReactionPoint random(c);
    DcqcnReactionPoint stepped(c);
    Time step = Time::zero();
    for (const Event& e : events) {
      for (; step <= e.at; step += Time::us(1)) stepped.advance(step);
      const Time extra = e.at - Time::ns(static_cast<int64_t>(rng.uniform_int(0, 30'000)));
      random.advance(extra);
      for (DcqcnReactionPoint* rp : {&sparse, &random, &stepped}) {
        if (e.cnp) {
          rp->on_cnp(e.at);
        } else {
          rp->on_bytes_sent(e.at, e.bytes);
        }
      }
      ASSERT_EQ(sparse.rate(), stepped.rate()) << "at " << e.at.picoseconds() << " ps";
      ASSERT_EQ(random.rate(), stepped.rate()) << "at " << e.at.picoseconds() << " ps";
      ASSERT_EQ(sparse.target_rate(), stepped.target_rate());
      ASSERT_EQ(random.target_rate(), stepped.target_rate());
      ASSERT_EQ(sparse.alpha(), stepped.alpha());
      ASSERT_EQ(sparse.next_timer(), stepped.next_timer());
    }
    const Time end = t + Time::ms(2);
    for (; step <= end; step += Time::us(1)) stepped.advance(step);
    stepped.advance(end);
    sparse.advance(end);
    EXPECT_EQ(sparse.rate(), stepped.rate());
    EXPECT_EQ(sparse.alpha(), stepped.alpha());
  }
}

TEST(DcqcnReactionPoint, RejectsImpossibleConfigurations) {
  DcqcnConfig c;
  c.min_rate = Rate::Gbps(200);
  EXPECT_EQ(testing::error_of([&] { DcqcnReactionPoint rp(c); }),
            "DCQCN min_rate must be in (0, line_rate = 100000000000 b/s], got 200000000000 b/s");
  c = DcqcnConfig{};
  c.g = 0;
  EXPECT_EQ(testing::error_of([&] { DcqcnReactionPoint rp(c); }),
            "DCQCN g must be in (0, 1], got 0");
  c = DcqcnConfig{};
  c.increase_period = Time::zero();
  EXPECT_EQ(testing::error_of([&] { DcqcnReactionPoint rp(c); }),
            "DCQCN increase_period must be positive, got 0 ps");
}

TEST(DcqcnNotificationPoint, AtMostOneCnpPerQpPerInterval) {
  DcqcnNotificationPoint np;  // 4 us
  EXPECT_TRUE(np.on_ce_packet(7, Time::us(10)));
  EXPECT_FALSE(np.on_ce_packet(7, Time::us(11)));
  EXPECT_FALSE(np.on_ce_packet(7, Time::us(14) - Time::ps(1)));
  EXPECT_TRUE(np.on_ce_packet(8, Time::us(11)));  // another QP has its own clock
  EXPECT_TRUE(np.on_ce_packet(7, Time::us(14)));
  EXPECT_FALSE(np.on_ce_packet(7, Time::us(17)));
  EXPECT_TRUE(np.on_ce_packet(7, Time::us(18)));

  // A steady CE stream every 1 us gives one CNP every 50 us with the paper's interval.
  DcqcnNotificationPoint paper(Time::us(50));
  int sent = 0;
  for (int i = 0; i < 1000; ++i) sent += paper.on_ce_packet(1, Time::us(i)) ? 1 : 0;
  EXPECT_EQ(sent, 20);
  EXPECT_EQ(testing::error_of([] { DcqcnNotificationPoint bad(Time::us(-1)); }),
            "DCQCN min_time_between_cnps must not be negative, got -1000000 ps");
}

// Per port, the interval spaces every CNP the port sends: 16 QPs marked at once share one CNP
// per interval, where per QP each would get its own.
TEST(DcqcnNotificationPoint, PerPortTheIntervalCountsEveryQp) {
  DcqcnNotificationPoint port(Time::us(4), CnpScope::per_port);
  EXPECT_TRUE(port.on_ce_packet(7, Time::us(10)));
  EXPECT_FALSE(port.on_ce_packet(8, Time::us(11))) << "another QP waits for the port's interval";
  EXPECT_TRUE(port.on_ce_packet(8, Time::us(14)));
  EXPECT_FALSE(port.on_ce_packet(7, Time::us(15)));
  int per_port = 0;
  int per_qp = 0;
  DcqcnNotificationPoint qp(Time::us(4), CnpScope::per_qp);
  DcqcnNotificationPoint shared(Time::us(4), CnpScope::per_port);
  for (int us = 0; us < 64; ++us) {
    for (uint32_t q = 0; q < 16; ++q) {
      per_qp += qp.on_ce_packet(q, Time::us(us)) ? 1 : 0;
      per_port += shared.on_ce_packet(q, Time::us(us)) ? 1 : 0;
    }
  }
  EXPECT_EQ(per_qp, 16 * 16);
  EXPECT_EQ(per_port, 16);
}

}  // namespace
}  // namespace bifrost::rnic
