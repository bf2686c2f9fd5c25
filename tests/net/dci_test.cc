// Bifrost DCI: configuration checks, the negative case of Theorem 1 (a buffer sized with a
// one-way Delta, half the paper's 2 x Rs x D, overflows), and the buffer PFC and DCI need on
// topology A.
#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "net/dci_fixture.h"

namespace bifrost::net {
namespace {

using testing::DciBench;
using testing::kDciPrio;

std::string install_error(DciConfig config) {
  DciBench bench(Rate::Gbps(100));
  try {
    install_dci(bench.net.kernel, config, bench.sw, 0, bench.sender.nic());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DciConfigCheck, RejectsBufferBelowTheTheoremBound) {
  DciConfig c;
  c.buffer = Bytes(100'000);
  EXPECT_NE(install_error(c).find("below Delta + 2 x Rs x T + k x MTU"), std::string::npos);
}

TEST(DciConfigCheck, RejectsSlotsOutsideInternalAndOneWayDelay) {
  DciConfig c;
  c.slot = Time::ns(400);  // the switch's processing latency is 500 ns
  EXPECT_NE(install_error(c).find("longer than the switch's internal delay"), std::string::npos);
  c.slot = Time::us(20);  // the one-way delay
  EXPECT_NE(install_error(c).find("shorter than the one-way delay"), std::string::npos);
}

TEST(DciConfigCheck, AutoBufferIsTheBoundAndInstalls) {
  DciBench bench(Rate::Gbps(100));
  DciConfig c;
  c.slot = Time::us(5);
  const DciPair pair = install_dci(bench.net.kernel, c, bench.sw, 0, bench.sender.nic());
  // Delta: 2 x 20 us + 500 ns + T(84 B) 6,720 ps + 2 x T(1122 B) 179,520 ps = 40,686,240 ps,
  // 508,578 bytes at 100 Gb/s, + 1102; Rs x T = 62,500; H = Delta + 2 x 62,500, and the buffer
  // H + 1 x 1102.
  EXPECT_EQ(pair.ingress->delta(), Bytes(509'680));
  EXPECT_EQ(pair.ingress->target(), Bytes(509'680 + 125'000));
  EXPECT_EQ(pair.ingress->buffer(), Bytes(509'680 + 125'000 + 1102));
}

// A broken variant: Delta as one one-way delay of bytes, half the paper's one BDP = 2 x Rs x D
// (the half of the link the pause frame crosses left out). Sized that way the buffer overflows
// when a full-rate drain stops.
TEST(DciTheoremNegative, OneWayDeltaOverflowsWhenTheDrainStops) {
  DciBench bench(Rate::Gbps(100));
  DciLinkParams lie = bench.link();
  lie.propagation = bench.one_way / 2;  // 2 x (P/2) = one one-way delay
  DciConfig c;
  c.slot = Time::us(5);
  EgressPort& reverse = bench.sw.egress(0);
  bench.sw.set_ingress_flow_control(
      0, std::make_unique<DciIngress>(bench.net.kernel, c, lie, reverse));
  install_pfc_gate(bench.net.kernel, bench.sender.nic());
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(300));  // full-rate drain: the pipe is full
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(600));
  EXPECT_GT(bench.sw.counters().drops[DropReason::kHeadroomExceeded], 0u);
}

TEST(DciTheoremNegative, TheSameStopWithTheDerivedDeltaLosesNothing) {
  DciBench bench(Rate::Gbps(100));
  DciConfig c;
  c.slot = Time::us(5);
  install_dci(bench.net.kernel, c, bench.sw, 0, bench.sender.nic());
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(300));
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(600));
  EXPECT_EQ(bench.drops(), 0u);
  EXPECT_GT(bench.sw.buffer().peak_headroom(0, kDciPrio), Bytes(500'000)) << "it did fill";
}

}  // namespace
}  // namespace bifrost::net

namespace bifrost::net {
namespace {

// Topology A of the paper: 80 km (400 us one way), 100 Gb/s per DCI port, T = 10 us, k = 1.
// PFC needs xoff >= one round trip of bytes (else the queue runs dry after a resume) plus the
// headroom bound; DCI needs Delta + 2 x Rs x T + k x S. experiments/dci-buffer/README.md puts
// these beside the paper's 6 + 9.5 = 15.5 MB and 9.72 MB.
TEST(DciBufferTopologyA, DciNeedsAboutHalfOfPfc) {
  const DciLinkParams link{.rate = Rate::Gbps(100),
                           .propagation = Time::us(400),
                           .ingress_latency = Time::zero(),
                           .max_frame_bytes = 1102};
  const Bytes dci = dci_min_buffer(link, Time::us(10), 1);
  const Bytes pfc_headroom = pfc_headroom_bound(PfcHeadroomInputs{.rate = Rate::Gbps(100),
                                                                  .propagation = Time::us(400),
                                                                  .ingress_latency = Time::zero(),
                                                                  .max_frame_bytes = 1102,
                                                                  .max_reverse_frame_bytes = 1102});
  const Bytes pfc_xoff = bytes_in(Time::us(800), Rate::Gbps(100));
  // Delta = bytes_in(800 us + 6,720 + 2 x 89,760 ps) + 1102 = 10,000,000 + 2,328 + 1102.
  EXPECT_EQ(dci_delta(link), Bytes(10'003'430));
  EXPECT_EQ(dci, Bytes(10'003'430 + 250'000 + 1102));
  EXPECT_EQ(pfc_headroom, Bytes(2 * 1102 + 10'001'206));
  EXPECT_EQ(pfc_xoff, Bytes(10'000'000));
  const double saving = 1.0 - static_cast<double>(dci.count()) /
                                  static_cast<double>((pfc_xoff + pfc_headroom).count());
  EXPECT_NEAR(saving, 0.487, 0.001);
}

}  // namespace
}  // namespace bifrost::net
