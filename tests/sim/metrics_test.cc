#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bifrost/core/error.h"
#include "bifrost/sim/metrics/writers.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::metrics {
namespace {

FlowRecord finished(uint64_t id, uint64_t size, int64_t fct_us) {
  // Ideal FCT 1 us, so the slowdown equals the FCT in microseconds.
  return FlowRecord{id, 0, 1, Bytes(size), Time::us(10), Time::us(10 + fct_us), Time::us(1), ""};
}

// Five small flows with slowdowns 3, 1, 10, 2, 4; one medium flow at 1.5; one unfinished
// large flow.
FlowMetrics hand_worked() {
  FlowMetrics m(SizeBuckets::standard(), {50, 99});
  m.add(finished(0, 100, 3));
  m.add(finished(1, 9'999, 1));
  m.add(finished(2, 1'000, 10));
  m.add(finished(3, 5'000, 2));
  m.add(finished(4, 1, 4));
  m.add({5, 2, 3, Bytes(10'000), Time::ns(0), Time::ns(3'000), Time::ns(2'000), "mid"});
  m.add({6, 4, 5, Bytes(5'000'000), Time::us(1), std::nullopt, Time::us(400), "big"});
  return m;
}

TEST(SizeBuckets, HalfOpenBucketsAndLabels) {
  const SizeBuckets b = SizeBuckets::standard();
  ASSERT_EQ(b.count(), 4u);
  EXPECT_EQ(b.bucket_of(Bytes(0)), 0u);
  EXPECT_EQ(b.bucket_of(Bytes(9'999)), 0u);
  EXPECT_EQ(b.bucket_of(Bytes(10'000)), 1u);
  EXPECT_EQ(b.bucket_of(Bytes(99'999)), 1u);
  EXPECT_EQ(b.bucket_of(Bytes(100'000)), 2u);
  EXPECT_EQ(b.bucket_of(Bytes(1'000'000)), 3u);
  EXPECT_EQ(b.label(0), "<10KB");
  EXPECT_EQ(b.label(1), "10KB-100KB");
  EXPECT_EQ(b.label(2), "100KB-1MB");
  EXPECT_EQ(b.label(3), ">=1MB");
  EXPECT_EQ(b.lower(2), Bytes(100'000));
  EXPECT_EQ(b.upper(2), Bytes(1'000'000));
  EXPECT_EQ(b.upper(3), std::nullopt);
  EXPECT_EQ(SizeBuckets({}).label(0), "any size");
  EXPECT_THROW(SizeBuckets({Bytes(10), Bytes(10)}), Error);
  EXPECT_THROW(SizeBuckets({Bytes(0)}), Error);
}

TEST(SizeBuckets, SizeLabels) {
  EXPECT_EQ(size_label(Bytes(1500)), "1500B");
  EXPECT_EQ(size_label(Bytes(1024)), "1KiB");
  EXPECT_EQ(size_label(Bytes(3'000'000)), "3MB");
  EXPECT_EQ(size_label(Bytes::GiB(2)), "2GiB");
  EXPECT_EQ(size_label(Bytes(1'024'000)), "1024KB");
  EXPECT_EQ(size_label(Bytes(0)), "0B");
}

TEST(FlowMetrics, SlowdownPercentilesBySizeByHand) {
  const FlowMetrics m = hand_worked();
  EXPECT_EQ(m.records().size(), 7u);
  EXPECT_EQ(m.finished(), 6u);
  EXPECT_EQ(m.unfinished(), 1u);
  const auto s = m.by_size();
  ASSERT_EQ(s.size(), 5u);
  // <10KB: sorted 1 2 3 4 10; mean 4; p50 is rank ceil(2.5) = 3 -> 3; p99 rank 5 -> 10.
  EXPECT_EQ(s[0].label, "<10KB");
  EXPECT_EQ(s[0].flows, 5u);
  EXPECT_DOUBLE_EQ(*s[0].mean, 4.0);
  EXPECT_EQ(s[0].percentiles, (std::vector<double>{3, 10}));
  // 10KB-100KB: one flow, FCT 3 us over ideal 2 us.
  EXPECT_EQ(s[1].flows, 1u);
  EXPECT_DOUBLE_EQ(*s[1].mean, 1.5);
  EXPECT_EQ(s[1].percentiles, (std::vector<double>{1.5, 1.5}));
  // 100KB-1MB: empty; >=1MB: its only flow did not finish.
  EXPECT_EQ(s[2].flows, 0u);
  EXPECT_EQ(s[2].mean, std::nullopt);
  EXPECT_TRUE(s[2].percentiles.empty());
  EXPECT_EQ(s[3].flows, 0u);
  // all: 1 1.5 2 3 4 10; mean 21.5 / 6; p50 rank 3 -> 2; p99 rank 6 -> 10.
  EXPECT_EQ(s[4].label, "all");
  EXPECT_EQ(s[4].flows, 6u);
  EXPECT_DOUBLE_EQ(*s[4].mean, 21.5 / 6);
  EXPECT_EQ(s[4].percentiles, (std::vector<double>{2, 10}));
}

TEST(FlowMetrics, FctPercentilesBySizeByHand) {
  const auto s = hand_worked().by_size();
  // <10KB: FCTs equal the slowdowns (ideal 1 us): 1 2 3 4 10 us.
  EXPECT_DOUBLE_EQ(*s[0].mean_fct_us, 4.0);
  EXPECT_EQ(s[0].fct_us, (std::vector<double>{3, 10}));
  // 10KB-100KB: 3 us (slowdown 1.5 over its 2 us ideal).
  EXPECT_DOUBLE_EQ(*s[1].mean_fct_us, 3.0);
  EXPECT_EQ(s[1].fct_us, (std::vector<double>{3, 3}));
  EXPECT_EQ(s[2].mean_fct_us, std::nullopt);
  EXPECT_TRUE(s[2].fct_us.empty());
  // all: 1 2 3 3 4 10; p50 rank 3 -> 3.
  EXPECT_DOUBLE_EQ(*s[4].mean_fct_us, 23.0 / 6);
  EXPECT_EQ(s[4].fct_us, (std::vector<double>{3, 10}));
}

TEST(FlowMetrics, RejectsImpossibleRecords) {
  FlowMetrics m;
  EXPECT_THROW(m.add({0, 0, 1, Bytes(1), Time::us(5), Time::us(4), Time::us(1), ""}), Error);
  EXPECT_THROW(m.add({0, 0, 1, Bytes(1), Time::us(5), Time::us(6), Time::zero(), ""}), Error);
  EXPECT_THROW(FlowMetrics(SizeBuckets::standard(), {101}), Error);
}

TEST(Writers, FlowsCsv) {
  FlowMetrics m;
  m.add({5, 2, 3, Bytes(10'000), Time::ns(0), Time::ns(3'000), Time::ns(2'000), "mid"});
  m.add({6, 4, 5, Bytes(5'000'000), Time::us(1), std::nullopt, Time::us(400), "a,b"});
  EXPECT_EQ(flows_csv(m),
            "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,tag\n"
            "5,2,3,10000,0,3000000,3000000,2000000,1.5,mid\n"
            "6,4,5,5000000,1000000,,,400000000,,\"a,b\"\n");
}

TEST(Writers, FctBySizeCsv) {
  EXPECT_EQ(fct_by_size_csv(hand_worked()),
            "bucket,min_bytes,max_bytes,flows,mean_slowdown,p50,p99,mean_fct_us,fct_p50_us,"
            "fct_p99_us\n"
            "<10KB,0,10000,5,4,3,10,4,3,10\n"
            "10KB-100KB,10000,100000,1,1.5,1.5,1.5,3,3,3\n"
            "100KB-1MB,100000,1000000,0,,,,,,\n"
            ">=1MB,1000000,,0,,,,,,\n"
            "all,0,,6,3.5833333333333335,2,10,3.8333333333333335,3,10\n");
}

TEST(Writers, ThroughputFromByteCounters) {
  ThroughputSeries t;
  const uint32_t a = t.add_link("sw0->sw1");
  const uint32_t b = t.add_link("host 3");
  t.sample(a, Time::zero(), Bytes(0));
  t.sample(b, Time::zero(), Bytes(500));
  // 125000 bytes in 10 us is 1e6 bits / 1e-5 s = 100 Gb/s; then 62500 bytes: 50 Gb/s.
  t.sample(a, Time::us(10), Bytes(125'000));
  t.sample(a, Time::us(20), Bytes(187'500));
  t.sample(b, Time::us(20), Bytes(500));
  EXPECT_EQ(throughput_csv(t),
            "start_ps,end_ps,link,bytes,gbps\n"
            "0,10000000,sw0->sw1,125000,100\n"
            "10000000,20000000,sw0->sw1,62500,50\n"
            "0,20000000,host 3,0,0\n");
  EXPECT_THROW(t.sample(a, Time::us(20), Bytes(200'000)), Error);
  EXPECT_THROW(t.sample(a, Time::us(30), Bytes(100)), Error);
  EXPECT_THROW(t.sample(7, Time::us(30), Bytes(100)), Error);
  EXPECT_THROW(t.add_link("host 3"), Error);
}

TEST(Writers, QueuesPausesDrops) {
  QueueSeries q;
  const uint32_t port = q.add_queue("sw0/p1");
  q.sample(port, Time::us(1), Bytes(1500));
  q.sample(port, Time::us(2), Bytes(0));
  EXPECT_EQ(queues_csv(q), "time_ps,queue,bytes\n1000000,sw0/p1,1500\n2000000,sw0/p1,0\n");

  PauseCounters p;
  p.add("sw1/p2", Time::zero(), Time::us(2));
  p.add("sw1/p2", Time::us(5), Time::us(6));
  p.add("sw0/p1", Time::us(1), Time::us(1));
  p.add_total("sw2/p0", 2, Time::us(4), Time::us(3), 9);  // a gate's totals: 9 frames
  EXPECT_EQ(p.count(), 5u);
  EXPECT_EQ(p.total(), Time::us(7));
  EXPECT_EQ(pauses_csv(p),
            "port,pauses,paused_ps,longest_ps,frames\n"
            "sw0/p1,1,0,0,0\n"
            "sw1/p2,2,3000000,2000000,0\n"
            "sw2/p0,2,4000000,3000000,9\n");
  EXPECT_THROW(p.add("x", Time::us(2), Time::us(1)), Error);

  DropCounters d;
  d.add("buffer_full", 3);
  d.add("ttl");
  d.add("buffer_full");
  EXPECT_EQ(d.total(), 5u);
  EXPECT_EQ(drops_csv(d), "reason,packets\nbuffer_full,4\nttl,1\n");
}

TEST(Writers, SummaryJson) {
  RunMetrics m;
  m.flows = hand_worked();
  const uint32_t link = m.throughput.add_link("bottleneck");
  m.throughput.sample(link, Time::zero(), Bytes(0));
  m.throughput.sample(link, Time::us(10), Bytes(125'000));
  m.throughput.sample(link, Time::us(20), Bytes(187'500));
  const uint32_t queue = m.queues.add_queue("sw0/p1");
  m.queues.sample(queue, Time::us(1), Bytes(1000));
  m.queues.sample(queue, Time::us(2), Bytes(3000));
  m.pauses.add("sw0/p1", Time::us(1), Time::us(4));
  m.drops.add("buffer_full", 2);
  const auto j =
      nlohmann::json::parse(summary_json(m, RunInfo{"incast.toml", 7, Time::ms(1), 2.5}));
  EXPECT_EQ(j["scenario"], "incast.toml");
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["simulated_ps"], 1'000'000'000);
  EXPECT_EQ(j["wall_seconds"], 2.5);
  EXPECT_EQ(j["flows"]["total"], 7);
  EXPECT_EQ(j["flows"]["finished"], 6);
  EXPECT_EQ(j["flows"]["unfinished"], 1);
  EXPECT_EQ(j["flows"]["bytes"], 100 + 9'999 + 1'000 + 5'000 + 1 + 10'000 + 5'000'000);
  EXPECT_EQ(j["flows"]["slowdown"]["p50"], 2.0);
  EXPECT_EQ(j["flows"]["slowdown"]["p99"], 10.0);
  ASSERT_EQ(j["flows"]["slowdown_by_size"].size(), 4u);
  EXPECT_EQ(j["flows"]["slowdown_by_size"][0]["bucket"], "<10KB");
  EXPECT_EQ(j["flows"]["slowdown_by_size"][0]["mean"], 4.0);
  EXPECT_TRUE(j["flows"]["slowdown_by_size"][2]["mean"].is_null());
  EXPECT_TRUE(j["flows"]["slowdown_by_size"][3]["max_bytes"].is_null());
  // 187500 bytes in 20 us: 75 Gb/s on average, 100 at most.
  EXPECT_DOUBLE_EQ(j["throughput"]["bottleneck"]["mean_gbps"].get<double>(), 75.0);
  EXPECT_DOUBLE_EQ(j["throughput"]["bottleneck"]["max_gbps"].get<double>(), 100.0);
  EXPECT_EQ(j["queues"]["sw0/p1"]["mean_bytes"], 2000.0);
  EXPECT_EQ(j["queues"]["sw0/p1"]["max_bytes"], 3000);
  EXPECT_EQ(j["pauses"]["count"], 1);
  EXPECT_EQ(j["pauses"]["paused_ps"], 3'000'000);
  EXPECT_EQ(j["pauses"]["by_port"]["sw0/p1"]["longest_ps"], 3'000'000);
  EXPECT_EQ(j["drops"]["total"], 2);
  EXPECT_EQ(j["drops"]["by_reason"]["buffer_full"], 2);
  EXPECT_FALSE(j.contains("nic")) << "only runs with soft RNICs have NIC counters";
}

TEST(Writers, SummaryJsonNicCounters) {
  RunMetrics m;
  m.flows = hand_worked();
  m.nic = NicTotals{.retransmitted = 5,
                    .timeouts = 2,
                    .naks_sent = 1,
                    .sacks_sent = 3,
                    .delayed_acks = 40,
                    .cnps_sent = 7,
                    .uc_out_of_sequence = 9};
  const auto j = nlohmann::json::parse(summary_json(m, RunInfo{"s.toml", 1, Time::ms(1), {}}));
  EXPECT_EQ(j["nic"]["retransmitted"], 5);
  EXPECT_EQ(j["nic"]["timeouts"], 2);
  EXPECT_EQ(j["nic"]["naks_sent"], 1);
  EXPECT_EQ(j["nic"]["sacks_sent"], 3);
  EXPECT_EQ(j["nic"]["delayed_acks"], 40);
  EXPECT_EQ(j["nic"]["cnps_sent"], 7);
  EXPECT_EQ(j["nic"]["uc_out_of_sequence"], 9);
}

TEST(Writers, WriteOutputsCreatesEveryFile) {
  const auto dir = std::filesystem::temp_directory_path() / "bifrost_metrics_test" / "out";
  std::filesystem::remove_all(dir.parent_path());
  const RunMetrics m = [] {
    RunMetrics out;
    out.flows = hand_worked();
    return out;
  }();
  write_outputs(m, RunInfo{"s.toml", 1, Time::ms(1), std::nullopt}, dir, false);
  for (std::string_view file : kOutputFiles) {
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  }
  // Without flow records, flows.csv keeps only its header.
  EXPECT_EQ(workload::read_text_file(dir / "flows.csv"),
            "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,tag\n");
  EXPECT_EQ(workload::read_text_file(dir / "fct_by_size.csv"), fct_by_size_csv(m.flows));
  // Only a run over the Bifröst transport has RTT samples to write.
  EXPECT_FALSE(std::filesystem::exists(dir / "transport_rtt.csv"));
  std::filesystem::remove_all(dir.parent_path());
}

TEST(Writers, TransportRttCsvOneRowPerDirection) {
  const std::vector<TransportRttDirection> rtt = {{.src = "h0",
                                                   .dst = "h1",
                                                   .lane = 0,
                                                   .priority = 0,
                                                   .samples = 3,
                                                   .min_us = 4.5,
                                                   .mean_us = 5.25,
                                                   .p50_us = 5,
                                                   .p99_us = 6.125,
                                                   .p999_us = 6.125,
                                                   .max_us = 6.125},
                                                  {.src = "h1",
                                                   .dst = "h0",
                                                   .lane = 2,
                                                   .priority = 3,
                                                   .samples = 1,
                                                   .min_us = 7,
                                                   .mean_us = 7,
                                                   .p50_us = 7,
                                                   .p99_us = 7,
                                                   .p999_us = 7,
                                                   .max_us = 7}};
  EXPECT_EQ(transport_rtt_csv(rtt),
            "src,dst,lane,priority,samples,min_us,mean_us,p50_us,p99_us,p999_us,max_us\n"
            "h0,h1,0,0,3,4.500,5.250,5.000,6.125,6.125,6.125\n"
            "h1,h0,2,3,1,7.000,7.000,7.000,7.000,7.000,7.000\n");
  const auto dir = std::filesystem::temp_directory_path() / "bifrost_metrics_rtt_test";
  std::filesystem::remove_all(dir);
  RunMetrics m;
  m.flows = hand_worked();
  m.transport_rtt = rtt;
  write_outputs(m, RunInfo{"s.toml", 1, Time::ms(1), std::nullopt}, dir, false);
  EXPECT_EQ(workload::read_text_file(dir / "transport_rtt.csv"), transport_rtt_csv(rtt));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bifrost::sim::metrics
