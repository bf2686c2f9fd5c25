// [upgrade]: the non-stop upgrade (Fig. 12). RPCs move from plain RC to Bifröst by a per-RPC
// flag, then PFC and DCQCN go off while they run; none is lost or delivered twice.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/net/flowctl/pfc_ingress.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/topology/graph.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;
using testing::parse;
using testing::run;

// Hosts 1-3 keep 4 RPCs of 64 KiB each outstanding into host 0 for 6 ms, lossless with DCQCN;
// `upgrade` is the [upgrade] table.
std::string rpcs_with(const std::string& upgrade, const std::string& transport = "bifrost-uc") {
  return R"(
[simulation]
mtu = 4096
duration = "20ms"
stop = "flows_done"
[topology]
kind = "star"
hosts = 4
host_rate = "100Gbps"
host_delay = "1us"
[switch.ecn]
kmin = "200KB"
kmax = "800KB"
pmax = 0.2
[switch.pfc]
threshold = "static"
xoff = "100KB"
xon = "80KB"
[nic]
model = "rnic"
dcqcn = true
dcqcn_cnp_interval = "50us"
[transport]
kind = ")" +
         transport +
         R"("
[[workload]]
kind = "closed_loop"
clients = "1..3"
server = 0
depth = 4
size = "64KiB"
duration = "6ms"
)" + upgrade;
}

TEST(UpgradeScenario, TimesAreParsedAndMistakesNamed) {
  const auto sc = parse(rpcs_with("[upgrade]\nto_bifrost = \"2ms\"\nlossless_off = \"4ms\"\n"));
  ASSERT_TRUE(sc.upgrade.has_value());
  EXPECT_EQ(sc.upgrade->to_bifrost, Time::ms(2));
  EXPECT_EQ(sc.upgrade->lossless_off, Time::ms(4));
  EXPECT_FALSE(parse(rpcs_with("")).upgrade.has_value());

  EXPECT_NE(error_of([] {
              parse(rpcs_with("[upgrade]\nlossless_off = \"2ms\"\n"));
            }).find("upgrade: missing required key \"to_bifrost\""),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(rpcs_with("[upgrade]\nto_bifrost = \"2ms\"\nlossless_off = \"1ms\"\n"));
            }).find("comes before to_bifrost"),
            std::string::npos);
  std::string no_loop = rpcs_with("[upgrade]\nto_bifrost = \"2ms\"\n");
  no_loop.replace(no_loop.find("kind = \"closed_loop\""), 20, "kind = \"all_to_all\"");
  no_loop.erase(no_loop.find("clients"), no_loop.find("[upgrade]") - no_loop.find("clients"));
  no_loop.insert(no_loop.find("[upgrade]"), "size = \"64KiB\"\n");
  EXPECT_NE(error_of([&] { parse(no_loop); }).find("add a [[workload]] of kind \"closed_loop\""),
            std::string::npos);
  no_loop.replace(no_loop.find("\"bifrost-uc\""), 12, "\"rc\"");
  EXPECT_NE(error_of([&] {
              parse(no_loop);
            }).find("set [transport] kind to \"bifrost-uc\" or \"bifrost-rc\""),
            std::string::npos);
}

TEST(UpgradeScenario, NoRpcIsLostOrDeliveredTwiceAcrossTheUpgrade) {
  for (const char* transport : {"bifrost-uc", "bifrost-rc"}) {
    SCOPED_TRACE(transport);
    const RunSummary s =
        run(rpcs_with("[upgrade]\nto_bifrost = \"2ms\"\nlossless_off = \"4ms\"\n", transport));
    ASSERT_EQ(s.closed_loops.size(), 1u);
    const ClosedLoopResult& r = s.closed_loops[0].result;
    EXPECT_GT(r.issued, 100u);
    EXPECT_EQ(r.completed, r.issued);
    EXPECT_EQ(r.failed, 0u);
    EXPECT_EQ(s.finished, s.flows);
    EXPECT_EQ(s.transport_unidentified, 0u);
    EXPECT_EQ(s.transport.messages, r.issued) << "each RPC is one message, delivered once";
    // Each client had a plain RC connection before the switch and a Bifröst one after it.
    EXPECT_EQ(s.transport.connections, 6u);
    EXPECT_GT(s.pauses, 0u) << "PFC was on before the upgrade";
  }
}

TEST(UpgradeScenario, WithoutTheFlagEveryRpcStaysOnOneConnectionPerClient) {
  const RunSummary s = run(rpcs_with(""));
  EXPECT_EQ(s.transport.connections, 3u);
  const RunSummary never = run(rpcs_with("[upgrade]\nto_bifrost = \"1s\"\n"));
  EXPECT_EQ(never.transport.connections, 3u) << "plain RC only";
  EXPECT_EQ(never.closed_loops[0].result.failed, 0u);
}

TEST(UpgradeScenario, DisablePfcLeavesNoPortPausing) {
  const auto sc = parse(rpcs_with(""));
  EventKernel kernel;
  NetworkConfig nc;
  nc.switches = sc.switches;
  nc.mtu = sc.simulation.mtu;
  nc.lossless_priorities = 1;
  Network network(kernel, topology::describe(sc.topology), nc);
  const auto pfc_ports = [&] {
    int n = 0;
    for (const auto& sw : network.switches()) {
      for (uint32_t p = 0; p < sw->port_count(); ++p) {
        n += dynamic_cast<net::PfcIngress*>(sw->ingress_flow_control(p)) != nullptr;
      }
    }
    return n;
  };
  EXPECT_EQ(pfc_ports(), 4);
  network.disable_pfc();
  kernel.run();
  EXPECT_EQ(pfc_ports(), 0);
}

}  // namespace
}  // namespace bifrost::sim
