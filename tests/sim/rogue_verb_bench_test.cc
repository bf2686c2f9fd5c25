// The Fig. 7 / Figs. 2, 3, 6 bench (tools/bifrost-rogue-rtt/verb_bench.h): one READ at a time
// over RoCE and RoGUE on an idle simulated 10 Gb/s wire, the modelled clock read showing in the
// small READ's completion time, and the counters per GB the signalling figures report.
#include "verb_bench.h"

#include <gtest/gtest.h>

namespace bifrost::rogue_rtt {
namespace {

VerbBenchConfig quick(Scheme scheme, uint64_t bytes) {
  VerbBenchConfig c;
  c.scheme = scheme;
  c.verb_bytes = bytes;
  c.warmup = 5;
  c.measured = 20;
  return c;
}

TEST(RogueVerbBench, SmallReadCostsWhatTheNicTakesPlusTheClockRead) {
  const VerbResult roce = run_verbs(quick(Scheme::roce, 64));
  const VerbResult off = run_verbs(quick(Scheme::rogue, 64));
  VerbBenchConfig on_config = quick(Scheme::rogue, 64);
  on_config.clock_read_cost = Time::us(1);
  on_config.signal_cost = Time::us(5);  // the application's own signal: not charged
  const VerbResult on = run_verbs(on_config);
  EXPECT_EQ(roce.groups, 20u);
  EXPECT_GT(roce.mean_us, 1.0);  // two wire delays and more
  EXPECT_NEAR(off.mean_us, roce.mean_us, 0.2);
  EXPECT_NEAR(on.mean_us, off.mean_us + 1.0, 0.05);
  EXPECT_EQ(on.clock_reads, 20u);
  EXPECT_EQ(on.modelled_cpu_ns, 20u * 1000);
}

TEST(RogueVerbBench, CountsPerGbOfOneMibReads) {
  VerbBenchConfig c = quick(Scheme::rogue, uint64_t{1} << 20);
  c.measured = 8;
  const VerbResult rogue = run_verbs(c);
  c.scheme = Scheme::roce;
  const VerbResult roce = run_verbs(c);
  // RoGUE: a 64 KiB segment, batch, signal and clock read each; RoCE: one WQE and signal a verb.
  const double per_segment = 1e9 / 65536.0;
  EXPECT_NEAR(rogue.per_gb(rogue.wqes), per_segment, 1.0);
  EXPECT_NEAR(rogue.per_gb(rogue.signals), per_segment, 1.0);
  EXPECT_NEAR(rogue.per_gb(rogue.clock_reads), per_segment, 1.0);
  EXPECT_NEAR(roce.per_gb(roce.signals), 1e9 / 1048576.0, 0.1);
  EXPECT_EQ(roce.clock_reads, 0u);
  EXPECT_GT(roce.gbps(), 8.0);  // one READ at a time still near the 10 Gb/s line
}

}  // namespace
}  // namespace bifrost::rogue_rtt
