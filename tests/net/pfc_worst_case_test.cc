// The worst cases of section III-B of the Bifrost DCI paper, built for PFC on a long link with
// the buffer Bifrost DCI needs there (B = Delta + 2 x Rs x T + k x S, 100 Gb/s, 20 us one way,
// T = 5 us). PFC must split B into xoff and headroom, and a round trip of bytes cannot fit in
// both: either the headroom is short of the bytes in flight when the drain stops (overflow),
// or xoff is short of a round trip of drain and the queue runs dry after each resume
// (throughput loss). DCI with the same B has neither.
#include <gtest/gtest.h>

#include "net/dci_fixture.h"

namespace bifrost::net {
namespace {

using testing::DciBench;
using testing::kDciPrio;
using testing::kMaxFrame;

constexpr Time kSlot = Time::us(5);

Bytes dci_buffer(const DciBench& bench) {
  return dci_min_buffer(bench.link(), kSlot, 1);
}

PfcConfig pfc_split(Bytes xoff, Bytes headroom) {
  PfcConfig c;
  c.lossless_priorities = 1u << kDciPrio;
  c.xoff = Threshold::fixed(xoff);
  c.headroom = headroom;
  return c;
}

// Worst case 1: the drain stops while the pipe is full. Half of B as headroom holds less than
// the round trip of bytes that keeps arriving after the pause is sent.
TEST(PfcWorstCase, HalfAndHalfSplitOverflowsWhenTheDrainStops) {
  DciBench bench(Rate::Gbps(100));
  const Bytes b = dci_buffer(bench);
  const Bytes half(b.count() / 2);
  install_pfc(bench.net.kernel, pfc_split(half, b - half), bench.sw, 0, bench.sender.nic());
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(300));
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(600));
  EXPECT_GT(bench.sw.counters().drops[DropReason::kHeadroomExceeded], 0u);
}

// Drained fraction of the 50 Gb/s sink link's capacity (frame bytes) from 200 us to 2.2 ms.
double drained_fraction(DciBench& bench) {
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(200));
  const uint64_t before = bench.drained();
  bench.net.kernel.run_until(Time::us(2200));
  const uint64_t can = bytes_in(Time::ms(2), Rate::Gbps(50)).count() * 1086 / 1106;
  return static_cast<double>(bench.drained() - before) / static_cast<double>(can);
}

// Worst case 2: headroom sized for the round trip leaves xoff = about 2 x Rs x T, which the
// half-rate drain empties long before the resumed data crosses the round trip.
TEST(PfcWorstCase, LosslessSplitRunsDryAtHalfRateDrain) {
  DciBench bench(Rate::Gbps(50));
  const Bytes b = dci_buffer(bench);
  const Bytes headroom =
      pfc_headroom_bound(PfcHeadroomInputs{.rate = Rate::Gbps(100),
                                           .propagation = bench.one_way,
                                           .ingress_latency = Time::ns(500),
                                           .max_frame_bytes = kMaxFrame,
                                           .max_reverse_frame_bytes = kMaxFrame});
  ASSERT_LT(headroom, b);
  const PfcPair pfc = install_pfc(bench.net.kernel, pfc_split(b - headroom, headroom), bench.sw, 0,
                                  bench.sender.nic());
  const double pfc_fraction = drained_fraction(bench);
  EXPECT_EQ(bench.drops(), 0u);
  EXPECT_GT(pfc.ingress->counters().resume_sent[kDciPrio], 3u);
  EXPECT_LT(pfc_fraction, 0.9);  // measured 0.857

  DciBench same(Rate::Gbps(50));
  DciConfig c;
  c.slot = kSlot;
  c.buffer = b;
  install_dci(same.net.kernel, c, same.sw, 0, same.sender.nic());
  const double dci_fraction = drained_fraction(same);
  EXPECT_EQ(same.drops(), 0u);
  EXPECT_GT(dci_fraction, 0.99);
  std::printf("drained fraction at 50 Gb/s with B = %lu bytes: PFC %.3f, DCI %.3f\n",
              static_cast<unsigned long>(b.count()), pfc_fraction, dci_fraction);
}

}  // namespace
}  // namespace bifrost::net
