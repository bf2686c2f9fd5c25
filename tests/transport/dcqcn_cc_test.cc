// The "dcqcn" congestion control alone: ECN-echo ACKs as CNPs, their rate limit, recovery by
// time and by acknowledged bytes, the window that follows the rate, and the ECN echo's way
// through the ACK builder.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/cc_config.h"
#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/transport/cc/dcqcn.h"
#include "bifrost/transport/reliability/ack_builder.h"

namespace bifrost::transport {
namespace {

constexpr Rate kLine = Rate::Gbps(100);
constexpr double kG = 5.0 / 1024.0;  // mlx5's alpha gain, the RP's default

CcParams params() {
  return CcParams{.base_rtt = Time::us(10), .bdp_bytes = 125'000, .mss = 4096, .line_rate = kLine};
}

AckEvent ack(Time now, uint64_t bytes = 0, bool ecn = false) {
  return AckEvent{.now = now, .acked_bytes = bytes, .rtt = std::nullopt, .ecn = ecn};
}

double gbps(std::optional<Rate> r) {
  return r ? r->gbps() : -1.0;
}

TEST(DcqcnCc, NoRateBeforeTheFirstEcnEcho) {
  Dcqcn cc(dcqcn_params_for(params()));
  EXPECT_EQ(cc.name(), "dcqcn");
  for (int i = 1; i <= 100; ++i) cc.on_ack(ack(Time::us(i), 64 * 1024));
  cc.on_loss(Time::us(200));
  cc.on_timeout(Time::us(300));
  EXPECT_FALSE(cc.pacing_rate());
  EXPECT_EQ(cc.cnps(), 0u);
  // Twice the line rate's bytes in one base RTT: 2 * 100 Gb/s * 10 us.
  EXPECT_EQ(cc.window_bytes(), 250'000u);
}

TEST(DcqcnCc, AnEcnEchoCutsTheRateByHalfAlpha) {
  Dcqcn cc(dcqcn_params_for(params()));
  cc.on_ack(ack(Time::us(100), 0, true));
  // Alpha starts at 1: the first cut halves the line rate.
  ASSERT_TRUE(cc.pacing_rate());
  EXPECT_NEAR(gbps(cc.pacing_rate()), 50.0, 1e-6);
  EXPECT_EQ(cc.cnps(), 1u);
  // After the cut alpha = (1 - g) + g = 1, decaying by (1 - g) per microsecond without a CNP.
  cc.on_ack(ack(Time::us(110), 0, true));
  const double alpha = std::pow(1.0 - kG, 10);
  EXPECT_NEAR(gbps(cc.pacing_rate()), 50.0 * (1.0 - alpha / 2.0), 1e-6);
  EXPECT_EQ(cc.cnps(), 2u);
  // The window follows the rate: twice its bytes in one base RTT.
  const double rate_bps = static_cast<double>(cc.pacing_rate()->bits_per_second());
  EXPECT_NEAR(static_cast<double>(cc.window_bytes()), 2 * rate_bps / 8 * 10e-6, 2.0);
}

TEST(DcqcnCc, EcnEchoesActAsCnpsAtMostOncePerFourMicroseconds) {
  Dcqcn cc(dcqcn_params_for(params()));
  cc.on_ack(ack(Time::us(100), 0, true));
  const auto after_first = cc.pacing_rate();
  cc.on_ack(ack(Time::us(101), 0, true));
  cc.on_ack(ack(Time::ns(103'999), 0, true));
  EXPECT_EQ(cc.cnps(), 1u);
  EXPECT_EQ(cc.pacing_rate(), after_first);
  cc.on_ack(ack(Time::us(104), 0, true));  // kDcqcnMinTimeBetweenCnps after the first
  EXPECT_EQ(cc.cnps(), 2u);
  EXPECT_LT(gbps(cc.pacing_rate()), gbps(after_first));
  // ACKs without the echo never count.
  cc.on_ack(ack(Time::us(200), 4096));
  EXPECT_EQ(cc.cnps(), 2u);
}

TEST(DcqcnCc, RecoversWithTimeBackToLineRate) {
  Dcqcn cc(dcqcn_params_for(params()));
  cc.on_ack(ack(Time::us(100), 0, true));
  // One increase period (300 us) later, fast recovery closes half the gap to the target.
  cc.on_ack(ack(Time::us(399)));
  EXPECT_NEAR(gbps(cc.pacing_rate()), 50.0, 1e-6);
  cc.on_ack(ack(Time::us(400)));
  EXPECT_NEAR(gbps(cc.pacing_rate()), 75.0, 1e-6);
  // Losses and timeouts advance the timers but never cut the rate.
  cc.on_loss(Time::us(700));
  EXPECT_NEAR(gbps(cc.pacing_rate()), 87.5, 1e-6);
  cc.on_timeout(Time::us(710));
  EXPECT_NEAR(gbps(cc.pacing_rate()), 87.5, 1e-6);
  // Back at line rate the QP is not limited at all.
  cc.on_ack(ack(Time::ms(100)));
  EXPECT_FALSE(cc.pacing_rate());
  EXPECT_EQ(cc.window_bytes(), 250'000u);
}

TEST(DcqcnCc, AcknowledgedBytesDriveTheByteCounter) {
  Dcqcn cc(dcqcn_params_for(params()));
  cc.on_ack(ack(Time::us(100), 0, true));
  // B = 32767 bytes (mlx5): one byte stage, no time passed.
  cc.on_ack(ack(Time::us(101), 32766));
  EXPECT_NEAR(gbps(cc.pacing_rate()), 50.0, 1e-6);
  cc.on_ack(ack(Time::us(102), 1));
  EXPECT_NEAR(gbps(cc.pacing_rate()), 75.0, 1e-6);
  // The bytes an ECN-echo ACK acknowledges count before its cut, as they were sent before it.
  Dcqcn other(dcqcn_params_for(params()));
  other.on_ack(ack(Time::us(100), 0, true));
  other.on_ack(ack(Time::us(200), 32767, true));
  const double alpha = std::pow(1.0 - kG, 100);
  EXPECT_NEAR(gbps(other.pacing_rate()), 75.0 * (1.0 - alpha / 2.0), 1e-6);
}

TEST(DcqcnCc, TheWindowNeverDropsBelowOneUnitAndFollowsTheLeastRtt) {
  Dcqcn cc(dcqcn_params_for(params()));
  for (int i = 0; i < 40; ++i) cc.on_ack(ack(Time::us(100 + 5 * i), 0, true));
  EXPECT_LT(gbps(cc.pacing_rate()), 1.0);
  EXPECT_EQ(cc.window_bytes(), 4096u);
  // A path slower than the configured base RTT: the window covers the measured one.
  Dcqcn slow(dcqcn_params_for(params()));
  slow.on_ack(AckEvent{.now = Time::us(1), .acked_bytes = 0, .rtt = Time::us(40)});
  EXPECT_EQ(slow.window_bytes(), 1'000'000u);
  slow.on_ack(AckEvent{.now = Time::us(2), .acked_bytes = 0, .rtt = Time::us(5)});
  EXPECT_EQ(slow.window_bytes(), 250'000u);  // never below the base RTT's
}

TEST(DcqcnCc, IsRegisteredByName) {
  const CcConfig dcqcn{.kind = parse_cc_kind("dcqcn")};
  EXPECT_EQ(make_congestion_control(dcqcn, params())->name(), "dcqcn");
  try {
    (void)parse_cc_kind("cubic");
    FAIL() << "an unknown name must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dcqcn"), std::string::npos) << e.what();
  }
  // The line rate comes from the parameters: a 25 Gb/s path is cut to 12.5.
  CcParams slow = params();
  slow.line_rate = Rate::Gbps(25);
  auto cc = make_congestion_control(dcqcn, slow);
  cc->on_ack(ack(Time::us(1), 0, true));
  EXPECT_NEAR(gbps(cc->pacing_rate()), 12.5, 1e-6);
}

TEST(DcqcnCc, TheAckBuilderEchoesAnyCeMarkOfItsWqesOnce) {
  AckBuilder b(AckCoalescing{.wqes = 4, .bytes = 1 << 20});
  const AckedWqe w{.is_send = true, .global = 1};
  b.add(w, 100, Time::us(1), false, false, false);
  b.add(w, 100, Time::us(2), false, false, true);
  b.add(w, 100, Time::us(3), false, false, false);
  EXPECT_TRUE(b.take(7, Time::us(4), AckTrigger::timer).ecn_echo);
  b.add(w, 100, Time::us(5), false, false, false);
  EXPECT_FALSE(b.take(7, Time::us(6), AckTrigger::timer).ecn_echo);
}

}  // namespace
}  // namespace bifrost::transport
