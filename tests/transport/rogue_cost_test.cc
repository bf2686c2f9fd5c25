// RoGUE's modelled host CPU (host_cpu.h; RogueConfig::signal_cost, clock_read_cost): the NIC
// clock read before each batch and the handling of each signal RoGUE asked for delay the next
// post on the connection, and the delay grows with the number of reads and signals.
#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/transport/rogue/host_cpu.h"
#include "bifrost/transport/rtt/rogue_batch.h"
#include "rogue_pair.h"

namespace bifrost::transport::testing {
namespace {

using rogue::QpType;
using rogue::RogueConfig;

sim::LossyWireConfig wire_10g() {
  sim::LossyWireConfig w;
  w.rate = Rate::Gbps(10);
  w.delay = Time::us(1);
  w.framing_bytes = transport::kLineBytesPerFrameBeyondMetered;
  return w;
}

RogueConfig costs(Time signal, Time clock) {
  RogueConfig c;
  c.qp_type = QpType::rc;
  c.signal_cost = signal;
  c.clock_read_cost = clock;
  return c;
}

struct Outcome {
  Time took;
  rogue::RogueStats stats;
};

// `verbs` signaled verbs of `bytes` each, posted at once from side 0; the time until all are
// done.
Outcome run_verbs(const RogueConfig& config, int verbs, uint64_t bytes, bool read) {
  RoguePair pair(config, wire_10g());
  const Time start = pair.kernel().now();
  for (int i = 0; i < verbs; ++i) {
    if (read) {
      pair.read(0, bytes);
    } else {
      pair.write(0, bytes);
    }
  }
  EXPECT_TRUE(pair.run_until_done(Time::s(1)));
  EXPECT_TRUE(pair.all_done_once());
  return Outcome{pair.kernel().now() - start, pair.connection(0).stats()};
}

TEST(RogueHostCpu, WorkQueuesBehindWorkAlreadyCharged) {
  rogue::HostCpu cpu;
  EXPECT_FALSE(cpu.busy(Time::zero()));
  EXPECT_EQ(cpu.charge(Time::us(10), Time::us(5)), Time::us(15));
  EXPECT_EQ(cpu.charge(Time::us(12), Time::us(1)), Time::us(16));  // behind the first
  EXPECT_TRUE(cpu.busy(Time::us(15)));
  EXPECT_FALSE(cpu.busy(Time::us(16)));
  EXPECT_EQ(cpu.charge(Time::us(20), Time::us(1)), Time::us(21));  // idle in between
  EXPECT_EQ(cpu.charged(), Time::us(7));
}

TEST(RogueHostCpu, NegativeCostsAreRefused) {
  EXPECT_THROW(costs(Time::us(-1), Time::zero()).validate(), Error);
  EXPECT_THROW(costs(Time::zero(), Time::us(-1)).validate(), Error);
}

TEST(RogueHostCpu, ZeroCostsChargeNothingButReadsAreCounted) {
  const Outcome r = run_verbs(costs(Time::zero(), Time::zero()), 1, uint64_t{1} << 20, true);
  EXPECT_EQ(r.stats.modelled_cpu_ns, 0u);
  EXPECT_EQ(r.stats.signals_charged, 0u);
  EXPECT_EQ(r.stats.clock_reads, r.stats.batches);
  EXPECT_EQ(r.stats.batches, 16u);
}

// Small signaled verbs are a batch each, all inside the first window: without costs they go at
// once; with a clock read of C each, batch i is posted i * C later.
TEST(RogueHostCpu, EachClockReadDelaysItsBatchAndTheReadsAddUp) {
  constexpr Time kRead = Time::us(20);  // far above a 1 KB verb's few microseconds
  for (const int verbs : {4, 8}) {
    const Outcome off = run_verbs(costs(Time::zero(), Time::zero()), verbs, 1024, false);
    const Outcome on = run_verbs(costs(Time::zero(), kRead), verbs, 1024, false);
    EXPECT_EQ(on.stats.clock_reads, static_cast<uint64_t>(verbs));
    EXPECT_EQ(on.stats.signals_charged, 0u);  // each signal is the application's
    EXPECT_EQ(on.stats.modelled_cpu_ns, static_cast<uint64_t>(verbs) * 20'000);
    const Time delay = on.took - off.took;
    EXPECT_GE(delay, kRead * (verbs - 1)) << verbs;
    EXPECT_LE(delay, kRead * verbs) << verbs;
  }
}

// One large verb: RoGUE signals every 64 KB batch, the last signal is the application's. With
// the window held below one batch, only the two batches RoGUE keeps enqueued are in flight, so
// later batches are posted once the signals before them were handled. A signal handled for
// longer than a batch takes to move then sets the pace: eight more batches, eight more signals'
// handling, whatever the NIC would have taken.
TEST(RogueHostCpu, SignalsRogueAskedForDelayTheNextPostPerBatch) {
  constexpr Time kSignal = Time::us(200);  // a 64 KB batch moves in ~54 us at 10 Gb/s
  for (const bool read : {false, true}) {
    for (const Time signal : {Time::zero(), kSignal}) {
      RogueConfig c = costs(signal, Time::zero());
      c.vegas.max_window_bytes = 32 << 10;  // below a batch: min_batches alone lets them go
      const Outcome eight = run_verbs(c, 1, uint64_t{512} << 10, read);
      const Outcome sixteen = run_verbs(c, 1, uint64_t{1} << 20, read);
      EXPECT_EQ(sixteen.stats.batches, 16u);
      EXPECT_EQ(sixteen.stats.signals_charged, signal > Time::zero() ? 15u : 0u) << read;
      const Time more = sixteen.took - eight.took;
      if (signal == Time::zero()) {
        EXPECT_LE(more, Time::us(8 * 60)) << read;  // eight batches' serialization
      } else {
        // The thread posts only once every signal already in is handled, so the two batches
        // go together every two signals: the boundary may take one signal more.
        EXPECT_GE(more, kSignal * 8 - Time::us(5)) << read;
        EXPECT_LE(more, kSignal * 9 + Time::us(60)) << read;
      }
    }
  }
}

// Below a batch's transfer time, the signal's handling hides behind the second batch RoGUE
// keeps enqueued (§3.1): the NIC does not wait for it.
TEST(RogueHostCpu, ASignalShorterThanABatchHidesBehindTheSecondBatch) {
  const Outcome off = run_verbs(costs(Time::zero(), Time::zero()), 1, uint64_t{1} << 20, true);
  const Outcome on = run_verbs(costs(Time::us(5), Time::zero()), 1, uint64_t{1} << 20, true);
  EXPECT_EQ(on.stats.signals_charged, 15u);
  EXPECT_LE(on.took - off.took, Time::us(5));
}

}  // namespace
}  // namespace bifrost::transport::testing
