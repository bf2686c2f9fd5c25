// Per-flow goodput over time ([metrics] flow_throughput_interval): the series and its Jain's
// indices by hand, then every flow carrier's samples checked against the flows themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/sim/metrics/flow_throughput.h"
#include "bifrost/sim/metrics/writers.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

using metrics::FlowThroughputSeries;

// A sample without the soft RNIC's DCQCN columns, or with them.
FlowThroughputSeries::Sample sample(uint64_t flow, Time start, Time end, Bytes bytes, bool whole,
                                    std::optional<double> dcqcn_gbps = std::nullopt,
                                    std::optional<double> dcqcn_alpha = std::nullopt) {
  return {.flow = flow,
          .start = start,
          .end = end,
          .bytes = bytes,
          .whole = whole,
          .dcqcn_gbps = dcqcn_gbps,
          .dcqcn_alpha = dcqcn_alpha};
}

TEST(FlowThroughputSeries, JainPerIntervalFromWholeSamplesOnly) {
  FlowThroughputSeries s(Time::us(10));
  // [0, 10): flows 0 and 1 at 1 and 3 units; flow 2 started inside (not whole).
  s.add(sample(0, Time::zero(), Time::us(10), Bytes(1000), true));
  s.add(sample(1, Time::zero(), Time::us(10), Bytes(3000), true));
  s.add(sample(2, Time::us(5), Time::us(10), Bytes(9000), false));
  // [10, 20): three equal flows.
  for (uint64_t f = 0; f < 3; ++f) s.add(sample(f, Time::us(10), Time::us(20), Bytes(2000), true));
  // [20, 30): one flow only: no fairness to report.
  s.add(sample(0, Time::us(20), Time::us(30), Bytes(2000), true));
  const auto fair = s.fairness();
  ASSERT_EQ(fair.size(), 2u);
  // (1 + 3)^2 / (2 * (1 + 9)) = 0.8
  EXPECT_EQ(fair[0].flows, 2u);
  EXPECT_DOUBLE_EQ(fair[0].jain, 0.8);
  EXPECT_EQ(fair[1].start, Time::us(10));
  EXPECT_EQ(fair[1].flows, 3u);
  EXPECT_DOUBLE_EQ(fair[1].jain, 1.0);
  // Per run: flow 0 moved 5000 B in 30 us, flow 1 5000 in 20, flow 2 11000 in 15.
  const double a = 5000.0 / 30, b = 5000.0 / 20, c = 11000.0 / 15;
  EXPECT_DOUBLE_EQ(*s.run_fairness(), (a + b + c) * (a + b + c) / (3 * (a * a + b * b + c * c)));
  EXPECT_DOUBLE_EQ(s.samples()[0].gbps(), 0.8);  // 8000 bits in 10 us
}

TEST(FlowThroughputSeries, RejectsEmptyAndMisshapenSamples) {
  FlowThroughputSeries s(Time::us(10));
  EXPECT_THROW(s.add(sample(0, Time::us(5), Time::us(5), Bytes(1), false)), Error);
  EXPECT_THROW(s.add(sample(0, Time::us(5), Time::us(10), Bytes(1), true)), Error);
  EXPECT_FALSE(s.run_fairness().has_value());
  s.add(sample(0, Time::zero(), Time::us(10), Bytes(1), true));
  EXPECT_FALSE(s.run_fairness().has_value());  // one flow
}

TEST(FlowThroughputSeries, CsvAndFairnessFiles) {
  FlowThroughputSeries s(Time::us(10));
  s.add(sample(4, Time::zero(), Time::us(10), Bytes(1250), true));
  s.add(sample(5, Time::zero(), Time::us(10), Bytes(1250), true, 2.5, 0.75));
  EXPECT_EQ(metrics::flow_throughput_csv(s),
            "start_ps,end_ps,flow,bytes,gbps,whole,dcqcn_gbps,dcqcn_alpha\n"
            "0,10000000,4,1250,1,1,,\n"
            "0,10000000,5,1250,1,1,2.5,0.75\n");
  EXPECT_EQ(metrics::flow_fairness_csv(s), "start_ps,end_ps,flows,jain\n0,10000000,2,1\n");
}

// Two 2 MB flows into host 0 at 10 Gb/s over `transport` (and `nic`), sampled every 200 us;
// the buffer holds the line-rate sources' whole excess, so no carrier loses a packet.
std::string two_flows(const std::string& transport, const std::string& nic) {
  testing::TwoToOne s;
  s.nic = nic;
  s.transport = transport;
  s.metrics = "flow_throughput_interval = \"200us\"\n";
  return testing::two_to_one(s);
}

// Each flow's samples tile [start, finish] without gaps and add up to its size.
void expect_samples_cover_flows(const RunSummary& s) {
  ASSERT_TRUE(s.metrics.flow_throughput.has_value());
  const FlowThroughputSeries& series = *s.metrics.flow_throughput;
  std::map<uint64_t, std::vector<FlowThroughputSeries::Sample>> by_flow;
  for (const auto& sample : series.samples()) by_flow[sample.flow].push_back(sample);
  ASSERT_EQ(by_flow.size(), s.metrics.flows.records().size());
  for (const metrics::FlowRecord& r : s.metrics.flows.records()) {
    ASSERT_TRUE(r.finished()) << r.id;
    const auto& samples = by_flow[r.id];
    ASSERT_FALSE(samples.empty());
    EXPECT_EQ(samples.front().start, r.start);
    EXPECT_EQ(samples.back().end, *r.finish);
    uint64_t bytes = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (i > 0) {
        EXPECT_EQ(samples[i].start, samples[i - 1].end) << r.id;
      }
      bytes += samples[i].bytes.count();
    }
    EXPECT_EQ(bytes, r.size.count()) << r.id;
  }
  // Both flows share the bottleneck for several whole intervals.
  const auto fairness = series.fairness();
  ASSERT_GE(fairness.size(), 3u);
  for (const auto& f : fairness) {
    EXPECT_EQ(f.flows, 2u);
    EXPECT_GT(f.jain, 0.5);
    EXPECT_LE(f.jain, 1.0);
  }
}

TEST(FlowThroughputScenario, EveryCarrierReportsPerFlowGoodput) {
  const std::string rnic = "model = \"rnic\"\n";
  expect_samples_cover_flows(testing::run(two_flows("", "model = \"line_rate\"\n")));
  expect_samples_cover_flows(testing::run(two_flows("", rnic)));
  for (const std::string kind : {"uc", "rogue-rc", "rogue-uc", "bifrost-uc", "bifrost-rc"}) {
    SCOPED_TRACE(kind);
    expect_samples_cover_flows(
        testing::run(two_flows("[transport]\nkind = \"" + kind + "\"\n", rnic)));
  }
}

// The soft RNIC's samples carry the sender QP's DCQCN state: with ECN marking at a 2:1
// bottleneck CNPs reach the QPs and DCQCN cuts their rate below the 10 Gb/s line (alpha in
// (0, 1]); without DCQCN no QP is ever cut; line-rate sources have no QP to report.
TEST(FlowThroughputScenario, RnicSamplesCarryDcqcnRateAndAlpha) {
  const std::string ecn = "[switch.ecn]\nkmin = \"5KB\"\nkmax = \"50KB\"\npmax = 0.5\n";
  const auto dcqcn_samples = [](const RunSummary& s) {
    std::vector<FlowThroughputSeries::Sample> out;
    for (const auto& sample : s.metrics.flow_throughput->samples()) {
      EXPECT_EQ(sample.dcqcn_gbps.has_value(), sample.dcqcn_alpha.has_value());
      if (sample.dcqcn_gbps) out.push_back(sample);
    }
    return out;
  };
  const RunSummary on = testing::run(two_flows(ecn, "model = \"rnic\"\ndcqcn = true\n"));
  ASSERT_TRUE(on.metrics.flow_throughput.has_value());
  ASSERT_TRUE(on.metrics.nic.has_value());
  EXPECT_GT(on.metrics.nic->cnps_sent, 0u);
  const auto cut = dcqcn_samples(on);
  ASSERT_FALSE(cut.empty());
  double lowest = 1e9;
  for (const auto& sample : cut) {
    lowest = std::min(lowest, *sample.dcqcn_gbps);
    EXPECT_GT(*sample.dcqcn_alpha, 0.0);
    EXPECT_LE(*sample.dcqcn_alpha, 1.0);
  }
  EXPECT_LT(lowest, 10.0);

  const RunSummary off = testing::run(two_flows(ecn, "model = \"rnic\"\n"));
  EXPECT_TRUE(dcqcn_samples(off).empty());
  EXPECT_TRUE(dcqcn_samples(testing::run(two_flows("", "model = \"line_rate\"\n"))).empty());
}

TEST(FlowThroughputScenario, OffUnlessAsked) {
  std::string text = two_flows("", "model = \"rnic\"\n");
  text.replace(text.find("flow_throughput_interval"), 24, "queue_interval");
  EXPECT_FALSE(testing::run(text).metrics.flow_throughput.has_value());
}

}  // namespace
}  // namespace bifrost::sim
