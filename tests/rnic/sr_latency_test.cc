// The SR latency model against the FaSR paper's numbers (sections II, V-A, V-D2): two cycles
// are 10 ns, FaSR's fast path 5 ns and slow path 12 ns, an expectation of 5.5 to 7 ns, 181M
// packets per second, SRNIC two orders of magnitude slower when it needs the host, and a
// 1.4 us query costing up to 40% at 400 Gb/s and 1% loss.
#include "bifrost/rnic/recovery/sr_latency.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"

namespace bifrost::rnic::recovery {
namespace {

constexpr SrLatencyConfig kPaper{};
// A 1 KB payload in a RoCEv2 frame with preamble and gap: 1024 + 62 + 20 B.
constexpr uint32_t kFrame = 1106;

TEST(SrLatency, OnChipActionsTakeTwoCyclesAndSrnicWaitsForTheHostOnlyToRead) {
  for (SrAction a : {SrAction::record_out_of_order, SrAction::return_sack, SrAction::update_rcv_nxt,
                     SrAction::find_retransmit_psn}) {
    EXPECT_EQ(sr_action_latency(kPaper, EngineKind::irn, a, SrPath::slow), Time::ns(10));
  }
  EXPECT_EQ(
      sr_action_latency(kPaper, EngineKind::srnic, SrAction::record_out_of_order, SrPath::fast),
      Time::ns(10));
  EXPECT_EQ(sr_action_latency(kPaper, EngineKind::srnic, SrAction::return_sack, SrPath::fast),
            Time::ns(10));
  const Time rcv_nxt =
      sr_action_latency(kPaper, EngineKind::srnic, SrAction::update_rcv_nxt, SrPath::fast);
  EXPECT_EQ(rcv_nxt, Time::ns(1210));
  // "SRNIC operation latency rises by two orders of magnitude."
  EXPECT_GE(rcv_nxt, Time::ns(10) * 100);
  EXPECT_THROW(sr_action_latency(kPaper, EngineKind::gbn, SrAction::return_sack, SrPath::fast),
               Error);
}

TEST(SrLatency, FasrFastPathBeatsIrnAndItsSlowPathIsThePapers12Ns) {
  const Time fast =
      sr_action_latency(kPaper, EngineKind::fasr, SrAction::find_retransmit_psn, SrPath::fast);
  EXPECT_EQ(fast, Time::ns(5));
  EXPECT_LT(fast, sr_action_latency(kPaper, EngineKind::irn, SrAction::find_retransmit_psn,
                                    SrPath::fast));
  EXPECT_EQ(sr_action_latency(kPaper, EngineKind::fasr, SrAction::update_rcv_nxt, SrPath::slow),
            Time::ns(12));
}

TEST(SrLatency, ExpectationOf5p5To7NsMeansAFastPathShareOf71To93Percent) {
  EXPECT_EQ(fasr_expected_latency(kPaper, 1.0), Time::ns(5));
  EXPECT_EQ(fasr_expected_latency(kPaper, 0.0), Time::ns(12));
  EXPECT_EQ(fasr_expected_latency(kPaper, 0.5), Time::ps(8500));
  EXPECT_NEAR(fasr_fast_fraction_for(kPaper, Time::ps(5500)), 6.5 / 7, 1e-12);
  EXPECT_NEAR(fasr_fast_fraction_for(kPaper, Time::ns(7)), 5.0 / 7, 1e-12);
  // Fig. 3's "exceeds 70%" fast-path share is just what the 7 ns upper end needs.
  EXPECT_LE(fasr_expected_latency(kPaper, 0.715), Time::ns(7));
  EXPECT_EQ(fasr_median_latency(kPaper, 0.5), Time::ns(5));
  EXPECT_EQ(fasr_median_latency(kPaper, 0.49), Time::ns(12));
  EXPECT_THROW(fasr_expected_latency(kPaper, 1.01), Error);
}

TEST(SrLatency, A5p5NsPipelineIs181Mpps) {
  EXPECT_NEAR(sr_pipeline_mpps(Time::ps(5500)), 181.8, 0.05);
  // At 1 KB frames that is far beyond 200 Gb/s; 200 Gb/s needs frames of at least 138 B.
  EXPECT_GT(sr_pipeline_line_rate(Time::ps(5500), kFrame), Rate::Gbps(1000));
  EXPECT_GE(sr_pipeline_line_rate(Time::ps(5500), 138), Rate::Gbps(200));
  EXPECT_LT(sr_pipeline_line_rate(Time::ps(5500), 137), Rate::Gbps(200));
}

TEST(SrLatency, OneQueryPerLossCosts40PercentAt400GbpsAndGrowsWithTheRate) {
  const Time query = Time::ns(1400);
  const double at100 = throughput_under_query_stalls(Rate::Gbps(100), 0.01, query, kFrame, 1);
  const double at200 = throughput_under_query_stalls(Rate::Gbps(200), 0.01, query, kFrame, 1);
  const double at400 = throughput_under_query_stalls(Rate::Gbps(400), 0.01, query, kFrame, 1);
  EXPECT_GT(at100, at200);
  EXPECT_GT(at200, at400);
  EXPECT_NEAR(1 - at400, 0.39, 0.01);  // "as high as 40%"
  EXPECT_NEAR(1 - at100, 0.14, 0.01);
  EXPECT_EQ(throughput_under_query_stalls(Rate::Gbps(400), 0, query, kFrame, 1), 1.0);
  EXPECT_THROW(throughput_under_query_stalls(Rate::Gbps(100), 1.0, query, kFrame, 1), Error);
}

}  // namespace
}  // namespace bifrost::rnic::recovery
