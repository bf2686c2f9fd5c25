// The `probe` workload: zero-byte RC WRITEs every interval from one host to another, their RTT
// (post to completion) into probe_rtt.csv and summary.json; parsed strictly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "bifrost/net/frame.h"
#include "bifrost/sim/metrics/probe_rtt.h"
#include "bifrost/sim/metrics/writers.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;
using testing::parse;
using testing::run;

// Four hosts at 10 Gb/s on one switch, 1 us links, MTU 1024, soft RNICs over plain RC; host 3
// probes host 0 every 20 us from 1 us on; `more` adds keys to the probe and tables after it.
std::string probe_star(const std::string& probe_keys, const std::string& more = "",
                       const std::string& nic = "model = \"rnic\"\n") {
  return R"([simulation]
seed = 1
mtu = 1024
duration = "2ms"
[topology]
kind = "star"
hosts = 4
host_rate = "10Gbps"
host_delay = "1us"
[switch]
buffer = "16MB"
[nic]
)" + nic +
         R"([[workload]]
kind = "probe"
name = "ping"
src = 3
dst = 0
)" + probe_keys +
         more;
}

const std::string kEvery20us = "interval = \"20us\"\nstart = \"1us\"\n";

TEST(ProbeWorkload, KeysAreParsedAndStopDefaultsToTheRunsEnd) {
  const auto sc = parse(probe_star(kEvery20us));
  ASSERT_EQ(sc.workloads.size(), 1u);
  const auto& p = std::get<scenario::ProbeWorkload>(sc.workloads[0].spec);
  EXPECT_EQ(p.src, 3u);
  EXPECT_EQ(p.dst, 0u);
  EXPECT_EQ(p.interval, Time::us(20));
  EXPECT_EQ(p.start, Time::us(1));
  EXPECT_EQ(p.stop, Time::ms(2));
  const auto stopped = parse(probe_star(kEvery20us + "stop = \"500us\"\n"));
  EXPECT_EQ(std::get<scenario::ProbeWorkload>(stopped.workloads[0].spec).stop, Time::us(500));
}

TEST(ProbeWorkload, BadKeysAreRefused) {
  const auto error = [](const std::string& keys, const std::string& nic = "model = \"rnic\"\n") {
    return error_of([&] { parse(probe_star(keys, "", nic)); });
  };
  EXPECT_NE(error("start = \"1us\"\n").find("\"interval\""), std::string::npos);
  EXPECT_NE(error(kEvery20us + "dst = 3\n").find("dst"), std::string::npos);
  EXPECT_NE(error(kEvery20us + "stop = \"1us\"\n").find("workload[0].stop"), std::string::npos);
  EXPECT_NE(error(kEvery20us + "op = \"read\"\n").find("op"), std::string::npos);
  EXPECT_NE(error(kEvery20us + "size = \"1KB\"\n").find("size"), std::string::npos);
  // Line-rate sources have no NIC to post on.
  EXPECT_NE(error(kEvery20us, "").find("model = \"rnic\""), std::string::npos)
      << error(kEvery20us, "");
}

// A probe's round trip on an idle network: the request (a WRITE-only frame with no payload)
// and its ACK each cross two 1 us links and the switch. No queue, so every probe measures it.
TEST(ProbeWorkload, AnIdleNetworkGivesTheBaseRttToEveryProbe) {
  const RunSummary s = run(probe_star(kEvery20us + "stop = \"1ms\"\n"));
  ASSERT_EQ(s.metrics.probes.size(), 1u);
  const metrics::ProbeRttSeries& p = s.metrics.probes[0];
  EXPECT_EQ(p.workload, "ping");
  EXPECT_EQ(p.posted, 50u);  // 1, 21, ..., 981 us
  ASSERT_EQ(p.probes.size(), 50u);
  EXPECT_EQ(p.failed, 0u);
  const double bit_ps = 100;  // 10 Gb/s
  const double request = net::data_frame_bytes(wire::Opcode::kRcWriteOnly, 0) * 8 * bit_ps;
  const Time wires = Time::us(4) + Time::from_seconds(2 * request * 1e-12);
  for (const metrics::ProbeRtt& r : p.probes) {
    EXPECT_EQ(r.rtt, p.probes[0].rtt);
    EXPECT_GT(r.rtt, wires);                // it crosses four wires and back
    EXPECT_LT(r.rtt, wires + Time::us(2));  // and does not queue anywhere
  }
  EXPECT_EQ(p.probes[1].posted - p.probes[0].posted, Time::us(20));
}

// Hosts 1 and 2 push 1 MB each into host 0 at line rate (plain RC, no congestion control):
// the switch port to host 0 holds up to about 1 MB (800 us at 10 Gb/s), and the probes into
// host 0 wait behind it.
TEST(ProbeWorkload, AQueueOnThePathLengthensTheRtt) {
  const std::string incast = R"([[workload]]
kind = "incast"
senders = [1, 2]
receiver = 0
size = "1MB"
start = "1us"
)";
  const auto idle = run(probe_star(kEvery20us)).metrics.probes[0];
  const auto busy = run(probe_star(kEvery20us, incast)).metrics.probes[0];
  ASSERT_FALSE(busy.probes.empty());
  const auto longest = std::max_element(busy.probes.begin(), busy.probes.end(),
                                        [](const auto& a, const auto& b) { return a.rtt < b.rtt; });
  EXPECT_GT(longest->rtt, idle.probes[0].rtt + Time::us(400));
  // After the incast drained (about 1.7 ms) the base RTT is back.
  EXPECT_EQ(busy.probes.back().rtt, idle.probes[0].rtt);
}

TEST(ProbeWorkload, RttsGoToTheCsvAndTheirPercentilesToTheSummary) {
  metrics::ProbeRttSeries s;
  s.workload = "ping";
  s.src = "h3";
  s.dst = "h0";
  s.posted = 11;
  for (int i = 1; i <= 10; ++i) s.probes.push_back({Time::us(10 * i), Time::us(i)});
  const std::string csv = metrics::probe_rtt_csv({s});
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "workload,src,dst,seq,posted_ps,rtt_ps");
  EXPECT_NE(csv.find("\nping,h3,h0,0,10000000,1000000\n"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 11);

  metrics::RunMetrics m;
  m.probes.push_back(s);
  const auto j = nlohmann::json::parse(metrics::summary_json(m, metrics::RunInfo{}));
  const auto& p = j.at("probes").at("ping");
  EXPECT_EQ(p.at("posted"), 11);
  EXPECT_EQ(p.at("completed"), 10);
  EXPECT_EQ(p.at("skipped"), 0);
  EXPECT_DOUBLE_EQ(p.at("p50_us").get<double>(), 5.0);  // nearest rank: the 5th of 10
  EXPECT_DOUBLE_EQ(p.at("p90_us").get<double>(), 9.0);
  EXPECT_DOUBLE_EQ(p.at("max_us").get<double>(), 10.0);
}

// A run writes probe_rtt.csv: its header and one row per completed probe.
TEST(ProbeWorkload, ARunWritesProbeRttCsv) {
  const auto dir = std::filesystem::temp_directory_path() / "bifrost_probe_test";
  run_scenario(parse(probe_star(kEvery20us + "stop = \"100us\"\n")), testing::quiet_into(dir));
  const std::string text = testing::read_file(dir / "probe_rtt.csv");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);  // header + 5
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bifrost::sim
