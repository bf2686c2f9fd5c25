// InfiniBand credit-based flow control over links of 200 m and 4 km (1 and 20 us one way) at
// 100 Gb/s, the sender backlogged and the sink draining at line rate. With 12-bit FCCL / FCTBS
// fields at most 2048 blocks (128 KiB) are outstanding, so over 4 km the throughput falls to
// about that window per credit round trip; the ideal variant (no field limit, a buffer of two
// round trips) keeps line rate. Neither ever drops: credits never exceed the buffer.
#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/net/flowctl/cbfc.h"
#include "net/dci_fixture.h"

namespace bifrost::net {
namespace {

using testing::kDciPrio;

constexpr Time kPeriod = Time::us(1);

struct CbfcRun {
  double gbps = 0;  // drained frame bytes per second, 200 us .. 1.2 ms
  uint64_t drops = 0;
  Bytes peak;
};

CbfcRun run(Time one_way, uint32_t field_bits, Bytes buffer) {
  testing::DciBench bench(Rate::Gbps(100), Bytes::MiB(8), Time::zero(), 0, one_way);
  CbfcConfig config;
  config.priorities = 1u << kDciPrio;
  config.buffer = buffer;
  config.update_period = kPeriod;
  config.field_bits = field_bits;
  install_cbfc(bench.net.kernel, config, bench.sw, 0, bench.sender.nic());
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(200));
  const uint64_t before = bench.drained();
  bench.net.kernel.run_until(Time::us(1200));
  return CbfcRun{.gbps = static_cast<double>(bench.drained() - before) * 8 / 1e-3 / 1e9,
                 .drops = bench.drops(),
                 .peak = bench.sw.buffer().peak_headroom(0, kDciPrio)};
}

// The credit round trip: the update's wait for a period (half on average) and its trip back,
// the frames' trip forward, and the switch latency; the window is 2048 blocks of 64 bytes.
double window_over_rtt_gbps(Time one_way) {
  const Time rtt = one_way * 2 + kPeriod / 2 + Time::ns(500);
  return 2048.0 * 64 * 8 / rtt.seconds() / 1e9;
}

// Frame bytes a 100 Gb/s link carries: 1086-byte frames with 20 bytes of wire overhead.
constexpr double kLineGbps = 100.0 * 1086 / 1106;

TEST(Cbfc, TwelveBitFieldsCollapseToWindowPerRoundTripOverFourKm) {
  const CbfcRun r = run(Time::us(20), kIbCreditFieldBits, Bytes::MiB(1));
  const double expect = window_over_rtt_gbps(Time::us(20));  // about 25.5 Gb/s
  EXPECT_NEAR(r.gbps, expect, 0.1 * expect);
  std::printf("12-bit CBFC over 4 km: %.2f Gb/s (window / round trip %.2f Gb/s)\n", r.gbps, expect);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_LE(r.peak, Bytes(2048 * 64));
}

TEST(Cbfc, TwelveBitFieldsKeepLineRateOverTwoHundredMetres) {
  const CbfcRun r = run(Time::us(1), kIbCreditFieldBits, Bytes::MiB(1));
  EXPECT_GT(r.gbps, 0.99 * kLineGbps);
  EXPECT_EQ(r.drops, 0u);
}

TEST(Cbfc, IdealCreditsKeepLineRateOverFourKmAndNeverOverflow) {
  const Bytes two_rtts = bytes_in(Time::us(82), Rate::Gbps(100));
  const CbfcRun r = run(Time::us(20), 0, two_rtts);
  EXPECT_GT(r.gbps, 0.99 * kLineGbps);
  std::printf("ideal CBFC over 4 km: %.2f Gb/s of %.2f\n", r.gbps, kLineGbps);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_LE(r.peak, two_rtts);
}

// A stopped drain: credits run out and the sender stops with the buffer at most full.
TEST(Cbfc, IdealCreditsStopTheSenderWhenTheDrainStops) {
  testing::DciBench bench(Rate::Gbps(100));
  CbfcConfig config;
  config.field_bits = 0;
  config.buffer = Bytes(300'000);
  install_cbfc(bench.net.kernel, config, bench.sw, 0, bench.sender.nic());
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(200));
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(600));
  EXPECT_EQ(bench.drops(), 0u);
  EXPECT_GT(bench.sw.buffer().peak_headroom(0, kDciPrio), Bytes(300'000 - 2 * 1102));
  const uint64_t sent = bench.sender.nic().counters().tx_bytes[kDciPrio];
  bench.net.kernel.run_until(Time::us(700));
  EXPECT_EQ(bench.sender.nic().counters().tx_bytes[kDciPrio], sent) << "no credit, no frame";
}

TEST(Cbfc, RejectsBadFieldsAndEmptyBuffers) {
  testing::DciBench bench(Rate::Gbps(100));
  CbfcConfig config;
  config.field_bits = 1;
  EXPECT_THROW(install_cbfc(bench.net.kernel, config, bench.sw, 0, bench.sender.nic()), Error);
  config.field_bits = 12;
  config.buffer = Bytes(63);
  EXPECT_THROW(install_cbfc(bench.net.kernel, config, bench.sw, 0, bench.sender.nic()), Error);
}

}  // namespace
}  // namespace bifrost::net
