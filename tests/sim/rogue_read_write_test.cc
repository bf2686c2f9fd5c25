// RoGUE keeps a READ and a WRITE window on one RC QP (§3.3), because the two directions'
// congestion is on opposite paths. Host 0 alternates 1 MiB WRITEs to host 1 and 1 MiB READs of
// host 1's bytes on its one QP; in the congested runs host 2 also WRITEs to host 0, so host 0's
// downlink, where the READ data lands, is shared. The READ window must see that congestion.
//
// The issue's further check, "READ congested alone leaves the WRITE window within 5% of its
// uncongested value", holds in no setup we found, and these tests assert why (numbers in
// docs/transport.md, "RoGUE", READ and WRITE windows):
// - The WRITE's RC ACK returns over the READ data's path (host 1 -> host 0), so in a FIFO
//   network READ congestion is never "alone". Putting RC ACKs in a strict-priority class
//   (rnic::DataPathConfig::ack_traffic_class) takes them out of the queue, yet the WRITE window
//   still collapses (1,510,701 -> 8,196 B).
// - The reason is the QP, not the network: RC completes in order and the responder answers in
//   PSN order, so a WRITE batch posted behind a READ completes only after the READ's responses
//   have arrived. Even uncongested, WRITE samples average about 450 us against a 6 us base RTT:
//   they measure the READ service ahead of them, and the "uncongested WRITE window" (1.3 MB) is
//   slow start's overshoot decaying, not an equilibrium that could be held.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <memory>
#include <string>

#include "bifrost/sim/metrics/cc_trace.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/topology/graph.h"
#include "bifrost/sim/transport_flows.h"
#include "lossy_fabric.h"
#include "make_flow.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

constexpr uint32_t kMtu = 2048;
constexpr uint64_t kFlowBytes = uint64_t{64} << 20;  // the congesting flow outlasts the run
constexpr uint64_t kVerbBytes = uint64_t{1} << 20;
constexpr int kVerbPairs = 200;
constexpr Time kFrom = Time::ms(5);  // past slow start
constexpr Time kTo = Time::ms(25);
constexpr Time kStep = Time::us(20);

struct Windows {
  double write_mean = 0;
  double read_mean = 0;
  double write_rtt_us = 0;   // host 0's WRITE RTT samples over the window, mean
  double write_base_us = 0;  // and the base RTT after the last of them
  double write_first = 0;    // the WRITE window at the first and last sample
  double write_last = 0;
};

// `ack_class`: RC ACKs in DSCP 48 (priority 6, strict above the data's 0) in every NIC.
Windows run(bool congest_read, bool ack_class = false) {
  const auto sc = testing::parse(
      "[simulation]\nmtu = " + std::to_string(kMtu) +
      "\n[topology]\nkind = \"star\"\nhosts = 3\nhost_rate = \"10Gbps\"\nhost_delay = \"1us\"\n"
      "[switch]\nbuffer = \"8MB\"\n");
  EventKernel kernel;
  Network network(kernel, topology::describe(sc.topology), testing::lossy_network_config(sc));
  TransportFlowsConfig c;
  c.transport.mtu = kMtu;
  transport::rogue::RogueConfig r;
  r.mtu = kMtu;
  r.line_rate = Rate::Gbps(10);
  c.rogue = r;
  if (ack_class) c.device.data_path.ack_traffic_class = 48 << 2;
  c.cc_trace = true;
  TransportFlows flows(kernel, network, c);
  // Alternating verbs on host 0's one QP: a WRITE to host 1, then a READ of host 1's bytes.
  uint64_t id = 0;
  if (congest_read) flows.add(testing::make_flow(id++, 2, 0, kFlowBytes));
  for (int k = 0; k < kVerbPairs; ++k) {
    flows.add(testing::make_flow(id++, 0, 1, kVerbBytes));
    flows.add(testing::make_flow(id++, 1, 0, kVerbBytes, Time::zero(), workload::FlowOp::read));
  }
  kernel.run_until(kFrom);
  const transport::rogue::RogueConnection* a = flows.rogue_connection(0, 1);
  EXPECT_NE(a, nullptr);
  Windows w;
  if (a == nullptr) return w;
  uint64_t samples = 0;
  for (Time t = kFrom; t < kTo; t = t + kStep) {
    kernel.run_until(t);
    w.write_mean += static_cast<double>(a->write_window());
    if (samples == 0) w.write_first = static_cast<double>(a->write_window());
    w.write_last = static_cast<double>(a->write_window());
    w.read_mean += static_cast<double>(a->read_window());
    ++samples;
  }
  w.write_mean /= static_cast<double>(samples);
  w.read_mean /= static_cast<double>(samples);
  uint64_t rtt_samples = 0;
  for (const metrics::CcTraceRow& row : flows.cc_trace()) {
    if (row.host != "h0" || row.peer != "h1" || row.read || !row.sample) continue;
    if (row.at < kFrom || row.at >= kTo) continue;
    w.write_rtt_us += row.rtt.seconds() * 1e6;
    w.write_base_us = row.base_rtt.seconds() * 1e6;
    ++rtt_samples;
  }
  EXPECT_GT(rtt_samples, 0u);
  if (rtt_samples > 0) w.write_rtt_us /= static_cast<double>(rtt_samples);
  return w;
}

void print(const char* what, const Windows& alone, const Windows& congested) {
  fmt::print(
      "{}: WRITE window {:.0f} -> {:.0f} B, READ window {:.0f} -> {:.0f} B, WRITE samples "
      "{:.1f} -> {:.1f} us (base {:.2f} -> {:.2f} us)\n",
      what, alone.write_mean, congested.write_mean, alone.read_mean, congested.read_mean,
      alone.write_rtt_us, congested.write_rtt_us, alone.write_base_us, congested.write_base_us);
}

TEST(RogueReadWrite, TheReadWindowSeesCongestionOnTheReadPath) {
  const Windows alone = run(false);
  const Windows congested = run(true);
  print("RoCE ACKs in the data class", alone, congested);
  EXPECT_LT(congested.read_mean, alone.read_mean / 2) << "the READ window did not react";
}

TEST(RogueReadWrite, WriteSamplesMeasureTheReadResponsesAheadOnTheQp) {
  // Uncongested: nothing queues on the WRITE path, yet its samples are dominated by waiting
  // for the READ responses posted before it on the in-order QP, and the WRITE window is slow
  // start's overshoot being cut step by step (1.70 MB at 5 ms, 1.03 MB at 23 ms): there is no
  // uncongested equilibrium for a congested run to stay within 5% of.
  const Windows alone = run(false);
  EXPECT_GT(alone.write_rtt_us, 10 * alone.write_base_us);
  EXPECT_LT(alone.write_last, 0.8 * alone.write_first);
}

TEST(RogueReadWrite, AcksInAStrictPriorityClassDoNotHoldTheWriteWindow) {
  // With the ACKs out of the congested queue, READ is congested alone in the network; the
  // WRITE window still collapses, through the QP's in-order completion (above).
  const Windows alone = run(false, true);
  const Windows congested = run(true, true);
  print("RC ACKs in a strict-priority class", alone, congested);
  EXPECT_LT(congested.read_mean, alone.read_mean / 2) << "the READ window did not react";
  EXPECT_GT(alone.write_rtt_us, 10 * alone.write_base_us);
  EXPECT_LT(congested.write_mean, alone.write_mean / 2);
}

}  // namespace
}  // namespace bifrost::sim
