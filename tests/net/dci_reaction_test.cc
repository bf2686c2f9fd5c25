// Bifrost DCI's reaction time (paper, section IV-C 2: "the downstream port can quickly react to
// congestion (i.e., at most after time 2T) and send out the pause frame"): on the long-link
// bench at 100 Gb/s, 20 us one way, with a backlogged sender and a full-rate drain (no pause
// is due), the drain stops at a phase swept across the slot; the first pause frame must leave
// the DCI port within 2T of the stop. PFC on the same bench, with an XOFF worth more than 2T
// of arrivals, reacts only when its queue reaches XOFF: the same measurement exceeds 2T.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "net/dci_fixture.h"

namespace bifrost::net {
namespace {

using testing::DciBench;
using testing::kDciPrio;
using testing::kMaxFrame;

constexpr Time kStop = Time::us(300);  // the pipe is full and steady by then

// With the sender backlogged: time from the drain's stop at `stop` to the first control frame
// D sends towards U after it (polled every 20 ns); Time::max() if none within 200 us.
Time first_pause_after(DciBench& bench, Time stop) {
  bench.net.kernel.run_until(stop);
  const uint64_t before = bench.sw.egress(0).counters().control_frames_sent;
  bench.drain->set_ready(false);
  for (Time t = stop; t < stop + Time::us(200); t = t + Time::ns(20)) {
    bench.net.kernel.run_until(t);
    if (bench.sw.egress(0).counters().control_frames_sent > before) return t - stop;
  }
  return Time::max();
}

TEST(DciReaction, FirstPauseLeavesWithinTwoSlotsOfADrainStop) {
  for (const Time slot : {Time::us(5), Time::us(10)}) {
    Time worst = Time::zero();
    for (int phase = 0; phase < 8; ++phase) {
      SCOPED_TRACE(::testing::Message() << "T " << slot.picoseconds() << " ps, phase " << phase);
      DciBench bench(Rate::Gbps(100));
      DciConfig c;
      c.slot = slot;
      install_dci(bench.net.kernel, c, bench.sw, 0, bench.sender.nic());
      // Before the stop the drain keeps up: no pause is due, none is sent.
      bench.backlog_sender();
      bench.net.kernel.run_until(Time::us(250));
      EXPECT_EQ(bench.sw.egress(0).counters().control_frames_sent, 0u);
      const Time reaction = first_pause_after(bench, kStop + slot * phase / 8);
      EXPECT_LE(reaction, slot * 2);
      worst = std::max(worst, reaction);
    }
    RecordProperty("worst_reaction_ps_T" + std::to_string(slot.picoseconds() / 1'000'000) + "us",
                   std::to_string(worst.picoseconds()));
  }
}

TEST(DciReaction, PfcWithAnXoffAboveTwoSlotsOfArrivalsReactsLater) {
  DciBench bench(Rate::Gbps(100));
  PfcConfig pfc;
  pfc.lossless_priorities = 1u << kDciPrio;
  pfc.xoff = Threshold::fixed(Bytes(200'000));  // 16 us of arrivals at 100 Gb/s, above 2 x 5 us
  pfc.xon = Bytes(200'000);
  pfc.headroom = pfc_headroom_bound(
      {Rate::Gbps(100), bench.one_way, bench.sw.processing_latency(), kMaxFrame, kMaxFrame});
  install_pfc(bench.net.kernel, pfc, bench.sw, 0, bench.sender.nic());
  bench.backlog_sender();
  const Time reaction = first_pause_after(bench, kStop);
  EXPECT_GT(reaction, Time::us(10));
  EXPECT_LT(reaction, Time::us(20));
}

}  // namespace
}  // namespace bifrost::net
