#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <variant>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/flows.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/workload/builtin_cdfs.h"
#include "bifrost/sim/workload/patterns.h"
#include "bifrost/sim/workload/poisson.h"

namespace bifrost::sim::scenario {
namespace {

std::filesystem::path source_dir() {
  const char* root = std::getenv("BIFROST_SOURCE_DIR");
  return root != nullptr ? root : ".";
}

std::filesystem::path data_dir() {
  return source_dir() / "tests" / "sim" / "data";
}

Scenario parse(std::string_view text) {
  return parse_scenario(text, "s.toml", data_dir());
}

TEST(ScenarioParse, MinimalFileTakesTheDefaults) {
  const Scenario s = parse("[topology]\nkind = \"star\"\nhosts = 4\n");
  EXPECT_EQ(s.source, "s.toml");
  EXPECT_EQ(s.simulation.seed, 1u);
  EXPECT_EQ(s.simulation.duration, std::nullopt);
  EXPECT_EQ(s.simulation.stop, StopRule::flows_done);
  EXPECT_EQ(s.simulation.mtu, Bytes(1000));
  EXPECT_EQ(s.simulation.progress, std::nullopt);
  EXPECT_EQ(std::get<StarTopology>(s.topology),
            (StarTopology{4, LinkSpec{Rate::Gbps(100), Time::us(1)}}));
  EXPECT_EQ(s.switches.buffer, Bytes(12'000'000));
  EXPECT_EQ(s.switches.alpha, 1.0);
  EXPECT_EQ(s.switches.ecn, std::nullopt);
  EXPECT_FALSE(s.switches.pfc.enabled);
  EXPECT_TRUE(s.workloads.empty());
  EXPECT_EQ(s.metrics.throughput_interval, std::nullopt);
  EXPECT_EQ(s.metrics.size_buckets,
            (std::vector<Bytes>{Bytes(10'000), Bytes(100'000), Bytes(1'000'000)}));
  EXPECT_EQ(s.metrics.percentiles, (std::vector<double>{50, 95, 99, 99.9}));
  EXPECT_TRUE(s.metrics.flow_records);
}

TEST(ScenarioParse, FullDumbbell) {
  const Scenario s = parse(R"(
[simulation]
seed = 99
duration = "2ms"
stop = "duration"
mtu = "4KiB"
progress = "100us"

[topology]
kind = "dumbbell"
hosts_per_side = 4
host_rate = "25Gbps"
host_delay = "500ns"
bottleneck_rate = "40Gbps"
bottleneck_length = "2km"

[switch]
buffer = "16MiB"
alpha = 0.5
ecn = { kmin = "50KB", kmax = 200000, pmax = 0.1 }
pfc = { threshold = "static", xoff = "512KB", xon = "480KB", headroom = "64KB" }

[[workload]]
kind = "poisson"
name = "bg"
priority = 1
cdf = "fb_hadoop"
load = 0.7
reference = "bottleneck"
sources = "0..3"
destinations = [4, 5, 6, 7]
start = "10us"
flows = 500

[[workload]]
kind = "incast"
receiver = 7
senders = "all"
size = "32KB"
jitter = "1us"
rounds = 2
period = "100us"

[metrics]
throughput_interval = "5us"
queue_interval = "1us"
size_buckets = ["1KB", 50000]
percentiles = [50, 99]
flow_records = false
)");
  EXPECT_EQ(s.simulation.seed, 99u);
  EXPECT_EQ(s.simulation.duration, Time::ms(2));
  EXPECT_EQ(s.simulation.stop, StopRule::duration);
  EXPECT_EQ(s.simulation.mtu, Bytes(4096));
  EXPECT_EQ(s.simulation.progress, Time::us(100));

  const auto& t = std::get<DumbbellTopology>(s.topology);
  EXPECT_EQ(t.hosts_per_side, 4u);
  EXPECT_EQ(t.host, (LinkSpec{Rate::Gbps(25), Time::ns(500)}));
  // 2 km of fibre at 5 ns/m.
  EXPECT_EQ(t.bottleneck, (LinkSpec{Rate::Gbps(40), Time::us(10)}));

  EXPECT_EQ(s.switches.buffer, Bytes::MiB(16));
  EXPECT_EQ(s.switches.alpha, 0.5);
  EXPECT_EQ(s.switches.ecn, (EcnConfig{Bytes(50'000), Bytes(200'000), 0.1}));
  EXPECT_TRUE(s.switches.pfc.enabled);
  EXPECT_EQ(s.switches.pfc.threshold, PfcThreshold::static_bytes);
  EXPECT_EQ(s.switches.pfc.xoff, Bytes(512'000));
  EXPECT_EQ(s.switches.pfc.xon, Bytes(480'000));
  EXPECT_EQ(s.switches.pfc.headroom, Bytes(64'000));

  ASSERT_EQ(s.workloads.size(), 2u);
  EXPECT_EQ(s.workloads[0].name, "bg");
  EXPECT_EQ(s.workloads[0].priority, 1);
  const auto& bg = std::get<PoissonWorkload>(s.workloads[0].spec);
  EXPECT_EQ(bg.sizes.get(), &workload::builtin_cdf("fb_hadoop"));
  EXPECT_EQ(bg.sizes_name, "fb_hadoop");
  EXPECT_EQ(bg.load, 0.7);
  EXPECT_EQ(bg.reference, "bottleneck");
  EXPECT_EQ(bg.sources, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(bg.destinations, (std::vector<uint32_t>{4, 5, 6, 7}));
  EXPECT_EQ(bg.start, Time::us(10));
  EXPECT_EQ(bg.duration, std::nullopt);
  EXPECT_EQ(bg.max_flows, 500u);

  EXPECT_EQ(s.workloads[1].name, "incast1");
  const auto& incast = std::get<IncastWorkload>(s.workloads[1].spec);
  EXPECT_EQ(incast.receiver, 7u);
  EXPECT_EQ(incast.senders, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(incast.size, Bytes(32'000));
  EXPECT_EQ(incast.jitter, Time::us(1));
  EXPECT_EQ(incast.rounds, 2u);
  EXPECT_EQ(incast.period, Time::us(100));

  EXPECT_EQ(s.metrics.throughput_interval, Time::us(5));
  EXPECT_EQ(s.metrics.queue_interval, Time::us(1));
  EXPECT_EQ(s.metrics.size_buckets, (std::vector<Bytes>{Bytes(1000), Bytes(50'000)}));
  EXPECT_EQ(s.metrics.percentiles, (std::vector<double>{50, 99}));
  EXPECT_FALSE(s.metrics.flow_records);
}

TEST(ScenarioParse, DynamicPfcDefaultsFollowTheMtu) {
  const Scenario s = parse(R"(
[simulation]
mtu = 2048
[topology]
kind = "star"
hosts = 4
[switch.pfc]
)");
  EXPECT_TRUE(s.switches.pfc.enabled);
  EXPECT_EQ(s.switches.pfc.threshold, PfcThreshold::dynamic);
  EXPECT_EQ(s.switches.pfc.resume_offset, Bytes(4096));
  EXPECT_EQ(s.switches.pfc.headroom, std::nullopt);
}

TEST(ScenarioParse, DisabledEcnTableMeansNoEcn) {
  const Scenario s = parse(R"(
[topology]
kind = "star"
hosts = 4
[switch.ecn]
enabled = false
)");
  EXPECT_EQ(s.switches.ecn, std::nullopt);
}

TEST(ScenarioParse, PoissonWithoutStopRunsToTheSimulationDuration) {
  const Scenario s = parse(R"(
[simulation]
duration = "3ms"
[topology]
kind = "star"
hosts = 4
[[workload]]
kind = "poisson"
size = "1MB"
load = 0.3
start = "1ms"
)");
  const auto& w = std::get<PoissonWorkload>(s.workloads.at(0).spec);
  EXPECT_EQ(w.duration, Time::ms(2));
  EXPECT_EQ(w.sizes->mean_bytes(), 1e6);
  EXPECT_EQ(w.sizes_name, "constant 1000000 bytes");
}

TEST(ScenarioParse, CdfFilesAreReadRelativeToTheScenario) {
  const Scenario s = parse(R"(
[topology]
kind = "star"
hosts = 4
[[workload]]
kind = "poisson"
cdf = "good_sizes.cdf"
load = 0.3
flows = 10
)");
  const auto& w = std::get<PoissonWorkload>(s.workloads.at(0).spec);
  // 20% at exactly 100 bytes, 80% uniform on [100, 300]: 0.2 * 100 + 0.8 * 200 = 180.
  EXPECT_DOUBLE_EQ(w.sizes->mean_bytes(), 180.0);
}

TEST(ScenarioParse, TopologyCounts) {
  const auto hosts = [](std::string_view topology) {
    return host_count(parse(std::string("[topology]\n") + std::string(topology)).topology);
  };
  EXPECT_EQ(hosts("kind = \"dumbbell\"\nhosts_per_side = 3\n"), 6u);
  EXPECT_EQ(hosts("kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 8\n"), 32u);
  // Three tiers: k pods of k/2 ToRs with k/2 hosts each: k^3 / 4.
  EXPECT_EQ(hosts("kind = \"fat_tree\"\nk = 4\n"), 16u);
  // Two tiers: k ToRs of k/2 hosts.
  EXPECT_EQ(hosts("kind = \"fat_tree\"\nk = 8\ntiers = 2\n"), 32u);
  EXPECT_EQ(hosts("kind = \"fat_tree\"\nk = 4\noversubscription = 3\n"), 48u);
  EXPECT_EQ(hosts("kind = \"parking_lot\"\nhops = 3\nhosts_per_switch = 2\n"), 8u);
  EXPECT_EQ(hosts("kind = \"two_dc\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 3\n"
                  "dci_rate = \"400Gbps\"\ndci_delay = \"50us\"\n"),
            12u);
}

TEST(ScenarioParse, LinkClassesAndRates) {
  const Scenario s = parse(R"(
[topology]
kind = "two_dc"
leaves = 2
spines = 2
hosts_per_leaf = 2
fabric_rate = "200Gbps"
dci_rate = "400Gbps"
dci_length = "10km"
dci_links = 2
)");
  const auto& t = std::get<TwoDcTopology>(s.topology);
  EXPECT_EQ(t.dci, (LinkSpec{Rate::Gbps(400), Time::us(50)}));
  EXPECT_EQ(t.dci_links, 2u);
  // Unset fabric delay follows the host link's.
  EXPECT_EQ(t.dc.fabric, (LinkSpec{Rate::Gbps(200), Time::us(1)}));
  EXPECT_EQ(link_classes(s.topology), (std::vector<std::string_view>{"host", "fabric", "dci"}));
  // A three-tier fat tree names its core links apart; two tiers have none.
  const Scenario tree =
      parse("[topology]\nkind = \"fat_tree\"\nk = 4\nfabric_rate = \"400Gbps\"\n");
  EXPECT_EQ(link_classes(tree.topology), (std::vector<std::string_view>{"host", "fabric", "core"}));
  EXPECT_EQ(link_class_rate(tree.topology, "core"), Rate::Gbps(400));
  const Scenario flat = parse("[topology]\nkind = \"fat_tree\"\nk = 4\ntiers = 2\n");
  EXPECT_EQ(link_classes(flat.topology), (std::vector<std::string_view>{"host", "fabric"}));
  EXPECT_EQ(link_class_rate(s.topology, "dci"), Rate::Gbps(400));
  EXPECT_EQ(link_class_rate(s.topology, "host"), Rate::Gbps(100));
  EXPECT_EQ(kind_name(s.topology), "two_dc");
  try {
    link_class_rate(s.topology, "chain");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "a two_dc topology has no link class \"chain\"; valid classes: host, "
                 "fabric, dci");
  }
}

// [metrics] throughput_links: link classes of the topology, each once, with an interval.
std::string two_dc_metrics(const std::string& metrics) {
  return R"([topology]
kind = "two_dc"
leaves = 1
spines = 1
hosts_per_leaf = 2
dci_rate = "400Gbps"
dci_length = "10km"
[metrics]
)" + metrics;
}

std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScenarioParse, ThroughputLinksNameLinkClasses) {
  EXPECT_TRUE(
      parse(two_dc_metrics("throughput_interval = \"10us\"\n")).metrics.throughput_links.empty());
  const Scenario s = parse(
      two_dc_metrics("throughput_interval = \"10us\"\nthroughput_links = [\"dci\", \"host\"]\n"));
  EXPECT_EQ(s.metrics.throughput_links, (std::vector<std::string>{"dci", "host"}));

  // [topology] takes lines 1 to 7 and [metrics] line 8: its keys start on line 9.
  EXPECT_EQ(parse_error(two_dc_metrics(
                "throughput_interval = \"10us\"\nthroughput_links = [\"dci\", \"chain\"]\n")),
            "s.toml:10:28: metrics.throughput_links: \"chain\" is not a link class of this "
            "topology; valid classes: host, fabric, dci");
  EXPECT_EQ(parse_error(two_dc_metrics(
                "throughput_interval = \"10us\"\nthroughput_links = [\"dci\", \"dci\"]\n")),
            "s.toml:10:28: metrics.throughput_links: \"dci\" is listed twice");
  EXPECT_EQ(parse_error(two_dc_metrics("throughput_interval = \"10us\"\nthroughput_links = [4]\n")),
            "s.toml:10:21: metrics.throughput_links: expected a link class name, one of: host, "
            "fabric, dci; found an integer");
  EXPECT_EQ(parse_error(two_dc_metrics("throughput_interval = \"10us\"\nthroughput_links = []\n")),
            "s.toml:10:20: metrics.throughput_links: is empty; list link classes, or leave the key "
            "out for every link");
  EXPECT_EQ(parse_error(two_dc_metrics("throughput_links = [\"dci\"]\n")),
            "s.toml:9:20: metrics.throughput_links: needs throughput_interval: without it "
            "nothing is sampled");
}

TEST(ScenarioParse, PfcHeadroomByHand) {
  // A 1 us link at 100 Gb/s holds 12500 bytes each way: 25000 bytes for the round trip, plus
  // two 1000-byte packets.
  EXPECT_EQ(pfc_headroom(LinkSpec{Rate::Gbps(100), Time::us(1)}, Bytes(1000)), Bytes(27'000));
}

TEST(ScenarioParse, ExampleScenariosParse) {
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "scenarios")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    const Scenario s = load_scenario(entry.path());
    EXPECT_FALSE(s.workloads.empty());
    // Closed loops make their flows during the run, none up front.
    const bool run_time_only = std::all_of(
        s.workloads.begin(), s.workloads.end(),
        [](const auto& w) { return std::holds_alternative<ClosedLoopWorkload>(w.spec); });
    EXPECT_EQ(build_flows(s).empty(), run_time_only);
    ++examples;
  }
  EXPECT_GE(examples, 3);
}

TEST(ScenarioFlows, IncastScenarioGivesTheGeneratorsFlows) {
  const Scenario s = parse(R"(
[simulation]
seed = 5
[topology]
kind = "star"
hosts = 5
[[workload]]
kind = "incast"
name = "in"
receiver = 0
senders = "all"
size = "10KB"
jitter = "1us"
priority = 2
)");
  const auto flows = build_flows(s);
  workload::IncastSpec spec;
  spec.senders = {1, 2, 3, 4};
  spec.receiver = 0;
  spec.size = Bytes(10'000);
  spec.jitter = Time::us(1);
  spec.priority = 2;
  spec.tag = "in";
  EXPECT_EQ(flows, workload::generate_incast(spec, RandomStream(5, "workload/in")));
}

TEST(ScenarioFlows, LoadReferenceSelectsPerSourceOrAggregate) {
  const std::string topology = R"(
[simulation]
seed = 3
[topology]
kind = "dumbbell"
hosts_per_side = 2
host_rate = "100Gbps"
bottleneck_rate = "40Gbps"
)";
  auto poisson = [&](std::string_view reference) {
    return build_flows(parse(topology + R"(
[[workload]]
kind = "poisson"
name = "p"
cdf = "websearch"
load = 0.5
sources = [0, 1]
destinations = [2, 3]
flows = 200
reference = ")" + std::string(reference) +
                             "\"\n"));
  };
  workload::PoissonSpec spec;
  spec.sources = {0, 1};
  spec.destinations = {2, 3};
  spec.load = 0.5;
  spec.stop.max_flows = 200;
  spec.tag = "p";
  spec.reference_rate = Rate::Gbps(100);
  const RandomStream rng(3, "workload/p");
  EXPECT_EQ(poisson("host"),
            workload::generate_poisson(spec, workload::builtin_cdf("websearch"), rng));
  spec.reference = workload::LoadReference::aggregate;
  spec.reference_rate = Rate::Gbps(40);
  EXPECT_EQ(poisson("bottleneck"),
            workload::generate_poisson(spec, workload::builtin_cdf("websearch"), rng));
}

TEST(ScenarioFlows, FileWorkloadsAreTaggedAndMergedInStartOrder) {
  const Scenario s = parse(R"(
[topology]
kind = "star"
hosts = 8
[[workload]]
kind = "file"
name = "cm"
format = "htsim"
path = "good_flows_htsim.cm"
[[workload]]
kind = "file"
name = "hpcc"
format = "hpcc"
path = "good_flows_hpcc.txt"
)");
  const auto flows = build_flows(s);
  ASSERT_EQ(flows.size(), 4u);
  // htsim starts 0 and 0.5 us; hpcc starts 1 us and 2 us.
  EXPECT_EQ(flows[0].tag, "cm");
  EXPECT_EQ(flows[1].start, Time::ns(500));
  EXPECT_EQ(flows[2].tag, "hpcc");
  EXPECT_EQ(flows[2].start, Time::us(1));
  EXPECT_EQ(flows[2].priority, 3);
  for (std::size_t i = 0; i < flows.size(); ++i) EXPECT_EQ(flows[i].id, i);
}

}  // namespace
}  // namespace bifrost::sim::scenario
