// Multi-address hosts and routing on Virtuoso's testbed topology (two ToRs joined by parallel
// path links): source routing pins alias i <-> peer alias i to path link i - 1 both ways;
// under ECMP the member predicted from the known hash is the link the packet takes; every
// alias of every host is delivered; [routing] and host_aliases parse errors name their key.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/net/routing_table.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"

namespace bifrost::sim {
namespace {

constexpr uint32_t kPaths = 4;

scenario::MultipathTopology testbed(uint32_t hosts_per_side = 1) {
  scenario::MultipathTopology t;
  t.hosts_per_side = hosts_per_side;
  t.paths = kPaths;
  t.host = {Rate::Gbps(10), Time::us(1)};
  t.path = {Rate::Gbps(1), Time::us(1)};
  return t;
}

struct Testbed {
  EventKernel kernel;
  std::unique_ptr<Network> network;
  std::vector<uint32_t> delivered;  // per host

  Testbed(scenario::RoutingMode mode, uint32_t aliases, uint32_t hosts_per_side = 1) {
    NetworkConfig nc;
    nc.addressing = {aliases, mode};
    network = std::make_unique<Network>(kernel, topology::describe(testbed(hosts_per_side)), nc);
    delivered.assign(network->host_count(), 0);
    for (uint32_t h = 0; h < network->host_count(); ++h) {
      network->host(h).set_receive_handler([this, h](world::PacketPtr) { ++delivered[h]; });
    }
  }
  // The path links in order: the graph's edges of class "path".
  std::vector<const Network::LinkInfo*> paths() const {
    std::vector<const Network::LinkInfo*> out;
    for (const auto& l : network->links()) {
      if (l.link_class == "path") out.push_back(&l);
    }
    return out;
  }
  // Sends one packet and runs to quiescence; returns the index of the path link it crossed
  // left-to-right (a_to_b) or right-to-left (b_to_a), or -1.
  int send(uint32_t from, uint32_t src_alias, uint32_t to, uint32_t dst_alias,
           uint16_t sport = 49152) {
    std::vector<uint64_t> before;
    for (const auto* l : paths()) {
      before.push_back(l->link->a_to_b().counters().data_frames_delivered +
                       l->link->b_to_a().counters().data_frames_delivered);
    }
    world::PacketPtr p = world::make_packet();
    p->src = {host_address(from, src_alias), sport};
    p->dst = {host_address(to, dst_alias), 4791};
    p->payload.length = 100;
    network->host(from).send(std::move(p));
    kernel.run();
    int crossed = -1;
    const auto links = paths();
    for (size_t i = 0; i < links.size(); ++i) {
      const uint64_t now = links[i]->link->a_to_b().counters().data_frames_delivered +
                           links[i]->link->b_to_a().counters().data_frames_delivered;
      if (now != before[i]) {
        EXPECT_EQ(crossed, -1) << "one packet crossed two path links";
        EXPECT_EQ(now - before[i], 1u);
        crossed = static_cast<int>(i);
      }
    }
    return crossed;
  }
};

TEST(MultipathRouting, HostsOwnTheirAliasesAndNoneCollide) {
  Testbed t(scenario::RoutingMode::ecmp, 3, 2);
  std::set<uint32_t> seen;
  for (uint32_t h = 0; h < t.network->host_count(); ++h) {
    const auto& addresses = t.network->host(h).addresses();
    ASSERT_EQ(addresses.size(), 4u);
    EXPECT_EQ(addresses[0], host_address(h));
    for (const auto& a : addresses) EXPECT_TRUE(seen.insert(a.value).second);
  }
}

TEST(MultipathRouting, SourceModePinsAliasIToPathIBothWays) {
  Testbed t(scenario::RoutingMode::source, kPaths);
  const auto links = t.paths();
  ASSERT_EQ(links.size(), kPaths);
  for (uint32_t alias = 1; alias <= kPaths; ++alias) {
    // Several source ports: a static route ignores the port, so none may move the packet.
    for (uint16_t sport : {49152, 50001, 61234}) {
      const uint64_t fwd = links[alias - 1]->link->a_to_b().counters().data_frames_delivered;
      EXPECT_EQ(t.send(0, alias, 1, alias, sport), static_cast<int>(alias - 1)) << alias;
      EXPECT_EQ(links[alias - 1]->link->a_to_b().counters().data_frames_delivered, fwd + 1);
      const uint64_t back = links[alias - 1]->link->b_to_a().counters().data_frames_delivered;
      EXPECT_EQ(t.send(1, alias, 0, alias, sport), static_cast<int>(alias - 1)) << alias;
      EXPECT_EQ(links[alias - 1]->link->b_to_a().counters().data_frames_delivered, back + 1);
    }
  }
  EXPECT_EQ(t.delivered[0], 3 * kPaths);
  EXPECT_EQ(t.delivered[1], 3 * kPaths);
}

TEST(MultipathRouting, MoreAliasesThanPathsWrapAround) {
  Testbed t(scenario::RoutingMode::source, 6);
  for (uint32_t alias = 1; alias <= 6; ++alias) {
    EXPECT_EQ(t.send(0, alias, 1, alias), static_cast<int>((alias - 1) % kPaths));
  }
}

TEST(MultipathRouting, EcmpTakesThePredictedMember) {
  Testbed t(scenario::RoutingMode::ecmp, 2);
  // The left ToR is graph node 2 (hosts first); its group towards host 1 is the path links.
  const uint32_t left = 2;
  const auto group = t.network->ports_towards(left, 1);
  ASSERT_EQ(group.size(), kPaths);
  const uint64_t seed = t.network->switch_at(left).ecmp_seed();
  std::set<int> taken;
  for (uint32_t alias = 0; alias <= 2; ++alias) {
    for (uint16_t sport = 49152; sport < 49152 + 40; ++sport) {
      const net::FiveTuple tuple{.src_ip = host_address(0, alias).value,
                                 .dst_ip = host_address(1, alias).value,
                                 .src_port = sport,
                                 .dst_port = 4791};
      const uint32_t port = group[net::ecmp_member(tuple, seed, kPaths)];
      const auto links = t.paths();
      const Network::LinkInfo* predicted = &t.network->links()[t.network->link_on_port(left, port)];
      const int crossed = t.send(0, alias, 1, alias, sport);
      ASSERT_GE(crossed, 0);
      EXPECT_EQ(links[crossed], predicted) << "alias " << alias << " port " << sport;
      taken.insert(crossed);
    }
  }
  EXPECT_EQ(taken.size(), kPaths);  // 120 flows reach every member
}

TEST(MultipathRouting, NoAliasIsUnroutable) {
  for (auto mode : {scenario::RoutingMode::ecmp, scenario::RoutingMode::source}) {
    Testbed t(mode, 3, 2);
    const uint32_t hosts = t.network->host_count();
    uint32_t sent = 0;
    for (uint32_t src = 0; src < hosts; ++src) {
      for (uint32_t dst = 0; dst < hosts; ++dst) {
        if (src == dst) continue;
        for (uint32_t sa = 0; sa <= 3; ++sa) {
          for (uint32_t da = 0; da <= 3; ++da) {
            const uint32_t before = t.delivered[dst];
            t.send(src, sa, dst, da);
            EXPECT_EQ(t.delivered[dst], before + 1)
                << src << "." << sa << " -> " << dst << "." << da;
            ++sent;
          }
        }
      }
    }
    uint64_t dropped = 0;
    for (const auto& sw : t.network->switches()) dropped += sw->counters().drops.total_packets();
    EXPECT_EQ(dropped, 0u);
    EXPECT_EQ(sent, hosts * (hosts - 1) * 16);
  }
}

TEST(MultipathRouting, PathRatesGiveEachLinkItsRate) {
  auto topo = testbed();
  topo.path_rates = {Rate::Gbps(1), Rate::Gbps(1), Rate::Gbps(2), Rate::Gbps(4)};
  const topology::Graph g = topology::describe(topo);
  std::vector<Rate> rates;
  for (const auto& e : g.edges) {
    if (e.link_class == "path") rates.push_back(e.link.rate);
  }
  EXPECT_EQ(rates, topo.path_rates);
  topo.path_rates.pop_back();
  EXPECT_THROW(topology::describe(topo), Error);
}

// The ideal FCT of a flow that may use K paths (Virtuoso's slowdown denominator): about
// size / min(host rate, sum of the K paths' rates), never less, and one path's exactly.
struct IdealBed {
  EventKernel kernel;
  std::unique_ptr<Network> network;
  explicit IdealBed(scenario::MultipathTopology topo) {
    NetworkConfig nc;
    nc.addressing = {topo.paths, scenario::RoutingMode::source};
    network = std::make_unique<Network>(kernel, topology::describe(topo), nc);
  }
  double seconds(Bytes size, uint32_t paths) const {
    return ideal_fct(size, 4096, network->shortest_paths(0, 1, paths), Time::zero()).seconds();
  }
};

TEST(MultipathIdealFct, KPathsTakeOneKthUntilTheHostLinkCaps) {
  auto topo = testbed();
  topo.paths = 12;
  const IdealBed bed(topo);
  const Bytes size(40'000'000);
  const auto paths = bed.network->shortest_paths(0, 1, 20);
  ASSERT_EQ(paths.size(), 12u);  // no more than there are
  EXPECT_EQ(paths[0], bed.network->shortest_path(0, 1));
  EXPECT_EQ(paths[3][1]->link_class, "path");
  EXPECT_NE(paths[3][1], paths[2][1]);
  EXPECT_EQ(paths[3][0], paths[2][0]);  // the host links are shared
  const double one = bed.seconds(size, 1);
  // One path: the single-path function, exactly.
  EXPECT_EQ(ideal_fct(size, 4096, paths[0], Time::zero()).seconds(), one);
  // 40 MB of frames at 1 Gb/s: a little over 0.32 s.
  EXPECT_NEAR(one, 0.32 * 1.015, 0.32 * 0.015);
  for (uint32_t k : {2u, 4u, 8u, 10u}) {
    EXPECT_NEAR(bed.seconds(size, k) * k / one, 1.0, 0.01) << k << " paths";
  }
  // Twelve 1 Gb/s paths behind a 10 Gb/s host link: the host link caps it at 1/10.
  EXPECT_NEAR(bed.seconds(size, 12) * 10 / one, 1.0, 0.01);
}

TEST(MultipathIdealFct, UnequalPathsAddTheirRates) {
  auto topo = testbed();
  topo.path_rates = {Rate::Gbps(1), Rate::Gbps(1), Rate::Gbps(2), Rate::Gbps(4)};
  const IdealBed bed(topo);
  const Bytes size(40'000'000);
  // 8 Gb/s in all: an eighth of one 1 Gb/s path's time.
  EXPECT_NEAR(bed.seconds(size, 4) * 8 / bed.seconds(size, 1), 1.0, 0.01);
  EXPECT_NEAR(bed.seconds(size, 2) * 2 / bed.seconds(size, 1), 1.0, 0.01);
  EXPECT_THROW(
      ideal_fct(size, 4096, std::vector<std::vector<const Network::LinkInfo*>>{}, Time::zero()),
      Error);
}

scenario::Scenario parse(const std::string& text) {
  return scenario::parse_scenario(text, "test.toml", ".");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MultipathScenario, ParsesTestbedAliasesAndRouting) {
  const auto s = parse(R"(
[topology]
kind = "multipath"
host_rate = "10Gbps"
paths = 4
path_rates = ["1Gbps", "1Gbps", "2Gbps", "4Gbps"]
path_delay = "2us"
host_aliases = 4
[routing]
mode = "source"
)");
  const auto& t = std::get<scenario::MultipathTopology>(s.topology);
  EXPECT_EQ(t.paths, 4u);
  EXPECT_EQ(t.hosts_per_side, 1u);
  EXPECT_EQ(t.path_rates[3], Rate::Gbps(4));
  EXPECT_EQ(t.path.delay, Time::us(2));
  EXPECT_EQ(s.addressing.host_aliases, 4u);
  EXPECT_EQ(s.addressing.routing, scenario::RoutingMode::source);
  EXPECT_EQ(scenario::link_classes(s.topology), (std::vector<std::string_view>{"host", "path"}));
}

TEST(MultipathScenario, ErrorsNameTheKey) {
  const std::string base = "[topology]\nkind = \"multipath\"\npaths = 2\n";
  EXPECT_NE(error_of(base + "path_rates = [\"1Gbps\"]\n").find("topology.path_rates"),
            std::string::npos);
  EXPECT_NE(error_of(base + "path_rates = [\"1Gbps\", 3]\n").find("topology.path_rates"),
            std::string::npos);
  EXPECT_NE(error_of(base + "path_rates = [\"1Gbps\", \"fast\"]\n").find("topology.path_rates"),
            std::string::npos);
  EXPECT_NE(error_of(base + "host_aliases = 16\n").find("topology.host_aliases"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[routing]\nmode = \"source\"\n").find("routing.mode"),
            std::string::npos);
  EXPECT_NE(error_of(base + "host_aliases = 1\n[routing]\nmode = \"spray\"\n").find("routing.mode"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[routing]\nweights = 1\n").find("weights"), std::string::npos);
  EXPECT_NE(error_of("[topology]\nkind = \"multipath\"\n").find("paths"), std::string::npos);
}

}  // namespace
}  // namespace bifrost::sim
