// Theorem 1's precondition H >= Delta + 2 x Rs x T is needed: an ingress told a link one slot
// shorter each way (so its Delta is 2 x Rs x T short and H = the true Delta + k x S) overflows
// when a full-rate drain stops, while the true sizing loses nothing in the same stop
// (dci_test.cc, TheSameStopWithTheDerivedDeltaLosesNothing).
#include <gtest/gtest.h>

#include "net/dci_fixture.h"

namespace bifrost::net {
namespace {

using testing::DciBench;

TEST(DciTheoremNegative, BufferBelowDeltaPlusTwoSlotsOverflowsWhenTheDrainStops) {
  DciBench bench(Rate::Gbps(100));
  DciConfig c;
  c.slot = Time::us(5);
  DciLinkParams lie = bench.link();
  lie.propagation = bench.one_way - c.slot;
  const Bytes h_lie = dci_min_buffer(lie, c.slot, 0);
  ASSERT_LT(h_lie, dci_delta(bench.link()) + bytes_in(c.slot * 2, Rate::Gbps(100)));
  bench.sw.set_ingress_flow_control(
      0, std::make_unique<DciIngress>(bench.net.kernel, c, lie, bench.sw.egress(0)));
  install_pfc_gate(bench.net.kernel, bench.sender.nic());
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(300));
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(600));
  EXPECT_GT(bench.sw.counters().drops[DropReason::kHeadroomExceeded], 0u);
}

}  // namespace
}  // namespace bifrost::net
