// FaSR's pool in scenario runs (the paper's Fig. 10): the numbers a run exports (RnicFlows::
// fasr_pools, summary.json's "fasr_pool", fasr_pool.csv) are the engines' own counters, their
// time averages agree with sampling the pools, a pool too small for the losses sends QPs to
// go-back-N without losing a byte, and [topology] <class>_loss makes links lossy.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/rnic_flows.h"
#include "bifrost/sim/scenario/flows.h"
#include "bifrost/sim/topology/graph.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::read_file;
using testing::run;

// Every ordered pair of 4 hosts on a star exchanges 1 MB over FaSR soft RNICs; each host link
// loses 1% of the frames in each direction. `nic_extra` adds [nic] keys.
std::string lossy_all_to_all(const std::string& nic_extra = "", double loss = 0.01) {
  return testing::lossy_star_all_to_all(11, std::to_string(loss),
                                        "recovery = \"fasr\"\ntimeout = 4\n" + nic_extra, "1MB");
}

const rnic::recovery::FasrPool& pool_of(const RnicFlows& flows, uint32_t host) {
  return dynamic_cast<const rnic::recovery::FasrEngine&>(flows.device(host).recovery_engine())
      .pool();
}

// The scenario's network and RnicFlows, built by hand so the test can reach the devices.
struct Bench {
  explicit Bench(const scenario::Scenario& sc)
      : network(kernel, topology::describe(sc.topology), network_config(sc)),
        flows(kernel, network, flows_config(sc)) {
    for (const auto& info : network.links()) {
      info.link->a_to_b().set_loss_rate(scenario::host_link(sc.topology).loss);
      info.link->b_to_a().set_loss_rate(scenario::host_link(sc.topology).loss);
    }
    for (const auto& f : scenario::build_flows(sc)) flows.add(f);
  }
  static NetworkConfig network_config(const scenario::Scenario& sc) {
    NetworkConfig nc;
    nc.switches = sc.switches;
    nc.mtu = sc.simulation.mtu;
    nc.seed = sc.simulation.seed;
    return nc;
  }
  static RnicFlowsConfig flows_config(const scenario::Scenario& sc) {
    RnicFlowsConfig c;
    c.mtu = 1024;
    c.timeout = sc.nic.timeout;
    c.device.recovery.kind = rnic::recovery::EngineKind::fasr;
    return c;
  }
  EventKernel kernel;
  Network network;
  RnicFlows flows;
};

TEST(FasrPoolExport, RecordsAreTheEnginesCountersAndTheirTimeAverages) {
  const auto sc = parse(lossy_all_to_all());
  Bench bench(sc);
  const uint32_t hosts = bench.network.host_count();
  // Sample every pool each 50 ns until the last flow completes: the time averages over the
  // same span must agree with the samples' means.
  std::vector<double> unit_sum(hosts, 0), block_sum(hosts, 0);
  uint64_t samples = 0;
  for (Time t = Time::zero(); bench.flows.completed() < 12; t += Time::ns(50)) {
    ASSERT_LT(t, Time::ms(50)) << "the flows must finish";
    bench.kernel.run_until(t);
    for (uint32_t h = 0; h < hosts; ++h) {
      unit_sum[h] += pool_of(bench.flows, h).usage().units_in_use;
      block_sum[h] += pool_of(bench.flows, h).usage().blocks_in_use;
    }
    ++samples;
  }

  const auto pools = bench.flows.fasr_pools();
  ASSERT_TRUE(pools.has_value());
  EXPECT_EQ(pools->units, 20u);
  EXPECT_EQ(pools->blocks, 256u);
  EXPECT_EQ(pools->pool_bytes, 1565u);
  ASSERT_EQ(pools->nics.size(), hosts);
  uint64_t episodes = 0;
  for (uint32_t h = 0; h < hosts; ++h) {
    SCOPED_TRACE(h);
    const auto& u = pool_of(bench.flows, h).usage();
    const metrics::FasrPoolNic& r = pools->nics[h];
    EXPECT_EQ(r.nic, bench.network.host(h).name());
    EXPECT_EQ(r.peak_units, u.peak_units);
    EXPECT_EQ(r.peak_blocks, u.peak_blocks);
    EXPECT_EQ(r.peak_bytes, (u.peak_bits + 7) / 8);
    EXPECT_EQ(r.unit_allocations, u.unit_allocations);
    EXPECT_EQ(r.block_allocations, u.block_allocations);
    EXPECT_EQ(r.fallbacks, u.fallbacks);
    EXPECT_EQ(r.fast_recoveries, u.fast_recoveries);
    EXPECT_EQ(r.slow_recoveries, u.slow_recoveries);
    EXPECT_EQ(r.observed, bench.kernel.now());
    const double n = static_cast<double>(samples);
    EXPECT_NEAR(r.mean_units, unit_sum[h] / n, 0.02 * r.mean_units + 1e-3);
    EXPECT_NEAR(r.mean_blocks, block_sum[h] / n, 0.02 * r.mean_blocks + 1e-3);
    EXPECT_GE(static_cast<double>(r.peak_units), r.mean_units);
    episodes += r.unit_allocations;
  }
  EXPECT_GT(episodes, 20u) << "1% loss on 12 MB must start recovery episodes";
}

TEST(FasrPoolExport, SummaryJsonAndCsvCarryThePools) {
  const auto dir = std::filesystem::temp_directory_path() / "bifrost_fasr_pool_export";
  RunOptions options = testing::quiet_into(dir);
  const RunSummary s = run_scenario(parse(lossy_all_to_all()), options);
  ASSERT_EQ(s.finished, 12u);
  ASSERT_TRUE(s.metrics.fasr_pool.has_value());
  const auto& nics = s.metrics.fasr_pool->nics;

  const auto j = nlohmann::json::parse(read_file(dir / "summary.json"))["fasr_pool"];
  EXPECT_EQ(j["pool_bytes"], 1565);
  EXPECT_EQ(j["nics"], 4);
  uint64_t fallbacks = 0, episodes = 0, peak = 0;
  double mean = 0;
  for (const auto& n : nics) {
    fallbacks += n.fallbacks;
    episodes += n.unit_allocations;
    peak = std::max(peak, n.peak_bytes);
    mean += n.mean_bytes / 4;
  }
  EXPECT_GT(episodes, 0u);
  EXPECT_EQ(j["unit_allocations"], episodes);
  EXPECT_EQ(j["fallbacks"], fallbacks);
  EXPECT_EQ(j["peak_bytes"], peak);
  EXPECT_DOUBLE_EQ(j["mean_bytes"].get<double>(), mean);

  std::istringstream csv(read_file(dir / "fasr_pool.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("nic,peak_units,peak_blocks,peak_bytes,mean_units", 0), 0u);
  std::vector<std::string> rows;
  while (std::getline(csv, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].substr(0, rows[2].find(',')), nics[2].nic);

  // Without FaSR there is neither the object nor the file.
  std::filesystem::remove_all(dir);
  auto gbn = parse(lossy_all_to_all());
  gbn.nic.recovery = "gbn";
  const RunSummary g = run_scenario(gbn, options);
  EXPECT_FALSE(g.metrics.fasr_pool.has_value());
  EXPECT_FALSE(nlohmann::json::parse(read_file(dir / "summary.json")).contains("fasr_pool"));
  EXPECT_FALSE(std::filesystem::exists(dir / "fasr_pool.csv"));
  std::filesystem::remove_all(dir);
}

TEST(FasrPoolExport, ATooSmallPoolFallsBackToGoBackNAndDeliversEverything) {
  const RunSummary small = run(lossy_all_to_all("fasr_units = 1\nfasr_blocks = 1\n", 0.02));
  EXPECT_EQ(small.finished, 12u) << "go-back-N must still deliver every flow";
  ASSERT_TRUE(small.metrics.fasr_pool.has_value());
  uint64_t fallbacks = 0, unit_fallbacks = 0;
  for (const auto& n : small.metrics.fasr_pool->nics) {
    EXPECT_LE(n.peak_units, 1u);
    EXPECT_LE(n.peak_blocks, 1u);
    fallbacks += n.fallbacks;
    unit_fallbacks += n.unit_fallbacks;
  }
  EXPECT_GT(unit_fallbacks, 0u) << "3 QPs per NIC share one unit";
  EXPECT_GT(fallbacks, unit_fallbacks) << "one block cannot hold a slow-path bitmap for long";
  // The default pool is ample here: no fallback at all.
  const RunSummary ample = run(lossy_all_to_all("", 0.02));
  EXPECT_EQ(ample.finished, 12u);
  for (const auto& n : ample.metrics.fasr_pool->nics) EXPECT_EQ(n.fallbacks, 0u);
}

TEST(LinkLoss, HostLinksLoseTheirShareOfFramesFromTheSeed) {
  // GBN resends what is lost; the drops are the links' random losses alone.
  auto sc = parse(lossy_all_to_all());
  sc.nic.recovery = "gbn";
  const RunSummary a = run_scenario(sc, RunOptions{{}, nullptr});
  ASSERT_EQ(a.finished, 12u);
  const uint64_t lost = a.metrics.drops.by_reason().at("random_loss");
  EXPECT_EQ(lost, a.drops);
  // data_packets counts every frame on every link: each crosses two host links.
  const double rate = static_cast<double>(lost) / static_cast<double>(a.data_packets);
  EXPECT_NEAR(rate, 0.01, 0.002);
  const RunSummary again = run_scenario(sc, RunOptions{{}, nullptr});
  EXPECT_EQ(again.metrics.drops.by_reason().at("random_loss"), lost);
  sc.simulation.seed = 12;
  const RunSummary other = run_scenario(sc, RunOptions{{}, nullptr});
  EXPECT_NE(other.metrics.drops.by_reason().at("random_loss"), lost);
  // Without the key nothing is lost.
  sc.topology = parse(lossy_all_to_all("", 0)).topology;
  EXPECT_EQ(run_scenario(sc, RunOptions{{}, nullptr}).drops, 0u);
}

TEST(LinkLoss, ScenarioKeysAreChecked) {
  using bifrost::testing::error_of;
  EXPECT_EQ(parse(lossy_all_to_all("", 0.25)).topology, parse(lossy_all_to_all("", 0.25)).topology);
  EXPECT_DOUBLE_EQ(scenario::host_link(parse(lossy_all_to_all("", 0.25)).topology).loss, 0.25);
  EXPECT_NE(error_of([] {
              parse(lossy_all_to_all("", 1.0));
            }).find("topology.host_loss: 1 is not a probability below 1"),
            std::string::npos);
  std::string gbn = lossy_all_to_all("fasr_units = 4\n");
  gbn.replace(gbn.find("\"fasr\""), 6, "\"gbn\"");
  EXPECT_NE(error_of([&] { parse(gbn); }).find("nic.fasr_units: is FaSR's pool"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(lossy_all_to_all("fasr_block_bits = 12\n"));
            }).find("12 is not valid; valid choices: 10, 16"),
            std::string::npos);
  const auto sc =
      parse(lossy_all_to_all("bdp_packets = 512\nfasr_units = 6\nfasr_blocks = 20\n"
                             "fasr_block_bits = 10\n"));
  EXPECT_EQ(sc.nic.bdp_packets, 512u);
  EXPECT_EQ(sc.nic.fasr_units, 6u);
  EXPECT_EQ(sc.nic.fasr_blocks, 20u);
  EXPECT_EQ(sc.nic.fasr_block_bits, 10u);
}

TEST(LinkLoss, NicDefaultsAreTheEnginesDefaults) {
  const scenario::NicConfig nic;
  const rnic::recovery::RecoveryConfig engine;
  EXPECT_EQ(nic.bdp_packets, engine.bdp_packets);
  EXPECT_EQ(nic.fasr_units, engine.fasr_pool.units);
  EXPECT_EQ(nic.fasr_blocks, engine.fasr_pool.blocks);
  EXPECT_EQ(nic.fasr_block_bits, engine.fasr_pool.block_bits);
}

}  // namespace
}  // namespace bifrost::sim
