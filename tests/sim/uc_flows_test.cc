// Plain UC RoCE flows ([transport] kind = "uc"): UC WRITE messages at line rate with no
// recovery. Without loss every flow completes; a lost packet costs its whole message, the flow
// never completes, and the goodput counted is the bytes of complete messages only, each counted
// once. Also the scenario keys and the combinations refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bifrost/sim/network.h"
#include "bifrost/sim/rnic_flows.h"
#include "bifrost/sim/topology/graph.h"
#include "lossy_fabric.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;

constexpr uint32_t kMtu = 2048;

// `senders` hosts (1..senders) each send one flow of `bytes` to host 0 over UC QPs at 10 Gb/s
// through a switch whose buffer holds every excess: only the links drop what the test asks.
struct UcIncast {
  UcIncast(uint32_t senders, uint64_t bytes, uint64_t message)
      : scenario(testing::parse("[simulation]\nmtu = 2048\n[topology]\nkind = \"star\"\nhosts = " +
                                std::to_string(senders + 1) +
                                "\nhost_rate = \"10Gbps\"\nhost_delay = \"1us\"\n"
                                "[switch]\nbuffer = \"64MB\"\n")),
        network(kernel, topology::describe(scenario.topology),
                testing::lossy_network_config(scenario)) {
    RnicFlowsConfig c;
    c.mtu = kMtu;
    c.qp_type = rnic::QpType::uc;
    c.uc_message = message;
    flows = std::make_unique<RnicFlows>(kernel, network, c);
    for (uint32_t src = 1; src <= senders; ++src) {
      workload::Flow f;
      f.id = src - 1;
      f.src = src;
      f.dst = 0;
      f.size = Bytes(bytes);
      flows->add(f);
    }
  }
  // Every host's uplink (host to switch) drops its n-th, 2n-th, ... data frame.
  void drop_every_from_hosts(uint64_t n) {
    const auto& graph = network.graph();
    for (const auto& info : network.links()) {
      (graph.is_host(info.a) ? info.link->a_to_b() : info.link->b_to_a())
          .drop_every_nth_data_frame(n);
    }
  }
  void lose_everywhere(double rate) {
    for (const auto& info : network.links()) {
      info.link->a_to_b().set_loss_rate(rate);
      info.link->b_to_a().set_loss_rate(rate);
    }
  }

  scenario::Scenario scenario;
  EventKernel kernel;
  Network network;
  std::unique_ptr<RnicFlows> flows;
};

TEST(UcFlows, LosslessFlowsCompleteWithEveryByte) {
  // 1,000,000 B in 48 KiB messages: 20 whole ones and a last of 16,960 B.
  constexpr uint64_t kBytes = 1'000'000;
  UcIncast b(2, kBytes, 48 * 1024);
  b.kernel.run_until(Time::ms(20));
  ASSERT_EQ(b.flows->completed(), 2u);
  for (uint64_t id = 0; id < 2; ++id) {
    const RnicFlowRecord& r = b.flows->records()[id];
    EXPECT_TRUE(r.complete);
    EXPECT_FALSE(r.failed);
    EXPECT_EQ(r.messages, 21u);
    EXPECT_EQ(r.messages_received, 21u);
    EXPECT_EQ(r.packets, 20 * 24 + 9);  // 48 KiB = 24 packets, 16,960 B = 9
    EXPECT_LT(r.finish, Time::ms(20));
    EXPECT_EQ(b.flows->delivered_bytes(id), kBytes);
  }
  EXPECT_EQ(b.flows->counters().rx_uc_messages_dropped, 0u);
  EXPECT_EQ(b.flows->counters().tx_retransmitted, 0u);
}

// A deterministic loss: the sender's uplink drops its 100th, 200th, ... packet. Each drop cuts
// the 32-packet message it falls in; those messages are gone, the others arrive whole.
TEST(UcFlows, ALostPacketLosesItsWholeMessageAndTheFlowNeverCompletes) {
  constexpr uint64_t kMessage = 64 * 1024;  // 32 packets
  constexpr uint64_t kMessages = 32;
  constexpr uint64_t kEvery = 100;
  UcIncast b(1, kMessages * kMessage, kMessage);
  b.drop_every_from_hosts(kEvery);
  b.kernel.run_until(Time::ms(20));
  std::set<uint64_t> lost;  // packet k (from 0) is the (k + 1)-th frame
  for (uint64_t frame = kEvery; frame <= kMessages * 32; frame += kEvery) {
    lost.insert((frame - 1) / 32);
  }
  ASSERT_EQ(lost.size(), 10u);
  const RnicFlowRecord& r = b.flows->records()[0];
  EXPECT_FALSE(r.complete);
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(r.finish, Time::max());
  EXPECT_EQ(b.flows->completed(), 0u);
  EXPECT_EQ(r.messages, kMessages);
  EXPECT_EQ(r.messages_received, kMessages - lost.size());
  EXPECT_EQ(b.flows->delivered_bytes(0), (kMessages - lost.size()) * kMessage);
  EXPECT_EQ(b.flows->counters().rx_uc_messages_dropped, lost.size());
  EXPECT_EQ(b.flows->counters().tx_retransmitted, 0u);  // nothing is sent again
}

// Random loss on every link: goodput is whole messages only, each counted once, and it only
// grows; a flow that lost a message is not complete, one that lost none is.
TEST(UcFlows, RandomLossCountsEachCompleteMessageOnce) {
  constexpr uint64_t kMessage = 16 * 1024;  // 8 packets
  constexpr uint64_t kBytes = uint64_t{1} << 20;
  constexpr uint32_t kSenders = 4;
  UcIncast b(kSenders, kBytes, kMessage);
  b.lose_everywhere(0.01);
  std::vector<uint64_t> last(kSenders, 0);
  while (b.kernel.now() < Time::ms(20)) {
    b.kernel.run_until(b.kernel.now() + Time::us(25));
    for (uint64_t id = 0; id < kSenders; ++id) {
      const uint64_t d = b.flows->delivered_bytes(id);
      EXPECT_GE(d, last[id]);
      EXPECT_EQ(d % kMessage, 0u) << "a partial message counted";
      last[id] = d;
    }
  }
  uint64_t lost = 0;
  for (uint64_t id = 0; id < kSenders; ++id) {
    const RnicFlowRecord& r = b.flows->records()[id];
    ASSERT_EQ(r.messages, kBytes / kMessage);
    EXPECT_LE(r.messages_received, r.messages);
    EXPECT_EQ(b.flows->delivered_bytes(id), r.messages_received * kMessage);
    EXPECT_EQ(r.complete, r.messages_received == r.messages);
    EXPECT_FALSE(r.failed);
    lost += r.messages - r.messages_received;
  }
  // About 1% of 512 packets per flow: some messages are lost, most arrive.
  EXPECT_GT(lost, 0u);
  EXPECT_LT(lost, kSenders * kBytes / kMessage / 2);
  EXPECT_LT(b.flows->completed(), kSenders);
  // A message cut inside is counted as dropped by the responder; one whose first packet was
  // lost is not, so the counter is at most the messages lost.
  EXPECT_LE(b.flows->counters().rx_uc_messages_dropped, lost);
  EXPECT_GT(b.flows->counters().rx_uc_messages_dropped, 0u);
}

TEST(UcFlows, RejectsBadMessageSizes) {
  UcIncast b(1, 1024, 1024);
  RnicFlowsConfig c;
  c.qp_type = rnic::QpType::uc;
  c.uc_message = 0;
  EXPECT_THROW(RnicFlows(b.kernel, b.network, c), Error);
  c.uc_message = (uint64_t{1} << 31) + 1;
  EXPECT_THROW(RnicFlows(b.kernel, b.network, c), Error);
  c.qp_type = rnic::QpType::ud;
  c.uc_message = 1024;
  EXPECT_THROW(RnicFlows(b.kernel, b.network, c), Error);
}

// Two 2 MB flows into host 0 at 10 Gb/s over plain UC, with extra [transport], [nic], [switch]
// and workload lines.
std::string uc_star(const std::string& transport, const std::string& nic = "",
                    const std::string& topology = "", const std::string& workload = "") {
  testing::TwoToOne s;
  s.topology = topology;
  s.nic = "model = \"rnic\"\n" + nic;
  s.transport = "[transport]\nkind = \"uc\"\n" + transport;
  s.metrics = "flow_throughput_interval = \"200us\"\nflow_records = true\n";
  s.workload = workload;
  return testing::two_to_one(s);
}

// The bytes of flow `id`'s throughput samples: what it delivered by the run's end.
uint64_t sampled_bytes(const RunSummary& s, uint64_t id) {
  uint64_t bytes = 0;
  for (const auto& sample : s.metrics.flow_throughput->samples()) {
    if (sample.flow == id) bytes += sample.bytes.count();
  }
  return bytes;
}

TEST(UcScenario, KindUcRunsPlainUcQpsAtLineRate) {
  const auto sc = testing::parse(uc_star("uc_message = \"32KB\"\n"));
  EXPECT_EQ(sc.transport.kind, scenario::TransportKind::uc);
  EXPECT_EQ(sc.transport.uc_message, Bytes(32'000));
  EXPECT_EQ(testing::parse(uc_star("")).transport.uc_message, Bytes(64 * 1024));
  const RunSummary s = testing::run(uc_star(""));
  EXPECT_EQ(s.flows, 2u);
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.retransmitted, 0u);
  ASSERT_TRUE(s.metrics.flow_throughput.has_value());
  for (uint64_t id = 0; id < 2; ++id) EXPECT_EQ(sampled_bytes(s, id), 2'000'000u);
}

// host_loss: the flows do not finish, and their throughput samples add up to whole messages.
TEST(UcScenario, HostLossLeavesFlowsUnfinishedWithWholeMessagesDelivered) {
  const RunSummary s = testing::run(uc_star("uc_message = \"20000B\"\n", "", "host_loss = 0.01\n"));
  EXPECT_EQ(s.flows, 2u);
  EXPECT_EQ(s.finished, 0u);
  ASSERT_TRUE(s.metrics.flow_throughput.has_value());
  for (uint64_t id = 0; id < 2; ++id) {
    const uint64_t bytes = sampled_bytes(s, id);
    EXPECT_GT(bytes, 0u);
    EXPECT_LT(bytes, 2'000'000u);
    EXPECT_EQ(bytes % 20'000, 0u) << "a partial message counted";
  }
}

// [nic] dcqcn on UC QPs: the receiver's NIC sends CNPs for marked packets and the senders'
// DCQCN cuts their rate below the line.
TEST(UcScenario, DcqcnWorksOnUcQps) {
  const RunSummary s = testing::run(
      uc_star("", "dcqcn = true\n[switch.ecn]\nkmin = \"5KB\"\nkmax = \"50KB\"\npmax = 0.5\n"));
  EXPECT_EQ(s.finished, 2u);
  ASSERT_TRUE(s.metrics.nic.has_value());
  EXPECT_GT(s.metrics.nic->cnps_sent, 0u);
  double lowest = 1e9;
  for (const auto& sample : s.metrics.flow_throughput->samples()) {
    if (sample.dcqcn_gbps) lowest = std::min(lowest, *sample.dcqcn_gbps);
  }
  EXPECT_LT(lowest, 10.0);
}

TEST(UcScenario, RefusedCombinations) {
  const auto error = [](const std::string& text) {
    return error_of([&] { testing::parse(text); });
  };
  std::string e = error(uc_star("", "", "", "op = \"read\"\n"));
  EXPECT_NE(e.find("workload[0].op"), std::string::npos) << e;
  e = error(uc_star("uc_message = \"3GB\"\n"));
  EXPECT_NE(e.find("transport.uc_message"), std::string::npos) << e;
  EXPECT_NE(e.find("2 GiB"), std::string::npos) << e;
  e = error(uc_star("uc_message = \"0B\"\n"));
  EXPECT_NE(e.find("uc_message"), std::string::npos) << e;
  e = error(uc_star("cc = \"dctcp\"\n"));
  EXPECT_NE(e.find("cc"), std::string::npos) << e;
  EXPECT_NE(e.find("for kind \"uc\""), std::string::npos) << e;
  std::string line_rate = uc_star("");
  line_rate.replace(line_rate.find("model = \"rnic\""), 14, "model = \"line_rate\"");
  e = error(line_rate);
  EXPECT_NE(e.find("set model = \"rnic\""), std::string::npos) << e;
  e = error(uc_star("", "", "",
                    "[[workload]]\nkind = \"closed_loop\"\nclients = \"all\"\nserver = 0\n"
                    "size = \"4KB\"\n"));
  EXPECT_NE(e.find("\"closed_loop\" runs over the Bifröst transport"), std::string::npos) << e;
  // uc_message belongs to kind = "uc" only.
  std::string rc = uc_star("uc_message = \"32KB\"\n");
  rc.replace(rc.find("kind = \"uc\""), 11, "kind = \"rc\"");
  e = error(rc);
  EXPECT_NE(e.find("uc_message"), std::string::npos) << e;
}

}  // namespace
}  // namespace bifrost::sim
