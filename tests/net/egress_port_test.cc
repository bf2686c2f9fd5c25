// The egress port: strict priority and DWRR order, the control lane, gates, and the event
// budget (no events while idle, one wake-up per busy transmission).
#include "bifrost/net/egress_port.h"

#include <gtest/gtest.h>

#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/net/link.h"
#include "bifrost/sim/event_kernel.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

using testing::data_packet;

// A node that records what arrives and when.
struct Recorder final : FrameReceiver {
  struct Arrival {
    Time at;
    uint32_t psn;
    int dscp;
    bool control;
    ControlFrame frame;
  };
  sim::EventKernel* kernel = nullptr;
  std::vector<Arrival> arrivals;
  void receive_data(uint32_t, world::PacketPtr packet, uint32_t) override {
    arrivals.push_back({kernel->now(), packet->roce.bth.psn, packet->dscp, false, {}});
  }
  void receive_control(uint32_t, const ControlFrame& frame) override {
    arrivals.push_back({kernel->now(), 0, -1, true, frame});
  }
};

// Two egress ports joined by a 100 Gb/s link with 1 us of propagation.
struct Wire {
  sim::EventKernel kernel;
  Recorder left, right;
  EgressPort out;
  EgressPort back;
  Link link;
  explicit Wire(SchedulingConfig scheduling = {})
      : out(kernel, 0, scheduling),
        back(kernel, 1, {}),
        link(kernel, LinkConfig{.rate = Rate::Gbps(100), .propagation = Time::us(1)},
             LinkEnd{&left, 0, &out}, LinkEnd{&right, 0, &back}) {
    left.kernel = &kernel;
    right.kernel = &kernel;
  }
  void send(int priority, uint32_t psn, uint32_t payload = 1024) {
    world::PacketPtr p = data_packet(testing::host_ip(0), testing::host_ip(1), payload, priority);
    p->roce.bth.psn = psn;
    const uint32_t bytes = data_frame_bytes(*p);
    out.enqueue(priority, QueuedPacket{std::move(p), bytes, 0});
  }
};

// A middle frame of 1024 bytes is 1086 frame bytes, 1106 on the wire: 88,480 ps at 100 Gb/s.
constexpr int64_t kFramePs = 88'480;
constexpr int64_t kPropagationPs = 1'000'000;

TEST(EgressPort, IdlePortSendsAtOnceWithOneEvent) {
  Wire w;
  w.send(0, 1);
  EXPECT_TRUE(w.out.busy());
  EXPECT_EQ(w.kernel.pending(), 1u) << "only the arrival: no wake-up for an empty queue";
  w.kernel.run();
  ASSERT_EQ(w.right.arrivals.size(), 1u);
  EXPECT_EQ(w.right.arrivals[0].at, Time::ps(kFramePs + kPropagationPs));
  EXPECT_EQ(w.out.counters().tx_packets[0], 1u);
  EXPECT_EQ(w.out.counters().tx_bytes[0], 1086u);
}

TEST(EgressPort, StrictPriorityServesHighestFirstAndFifoWithin) {
  Wire w;
  w.send(1, 100);  // goes on the wire at once
  w.send(1, 101);
  w.send(5, 500);
  w.send(3, 300);
  w.send(5, 501);
  EXPECT_EQ(w.out.queue_bytes(5), Bytes(2 * 1086));
  EXPECT_EQ(w.out.total_queue_bytes(), Bytes(4 * 1086));
  w.kernel.run();
  std::vector<uint32_t> order;
  for (const auto& a : w.right.arrivals) order.push_back(a.psn);
  EXPECT_EQ(order, (std::vector<uint32_t>{100, 500, 501, 300, 101}));
  // Back to back: the n-th frame arrives n frame times after the first.
  for (std::size_t i = 0; i < w.right.arrivals.size(); ++i) {
    EXPECT_EQ(w.right.arrivals[i].at,
              Time::ps(kFramePs * static_cast<int64_t>(i + 1) + kPropagationPs));
  }
}

TEST(EgressPort, DeficitRoundRobinSharesBytesByQuantum) {
  SchedulingConfig dwrr;
  dwrr.policy = SchedulingPolicy::kDeficitRoundRobin;
  dwrr.quantum_bytes = {1086, 3 * 1086, 1086, 1086, 1086, 1086, 1086, 1086};
  Wire w(dwrr);
  for (uint32_t i = 0; i < 40; ++i) w.send(1, 1000 + i);
  for (uint32_t i = 0; i < 40; ++i) w.send(6, 6000 + i);
  w.kernel.run();
  // The first frame (priority 1) left before the rest was queued. After it, each round serves
  // three frames of priority 1 (quantum 3 frames) and one of priority 6.
  int p1 = 0;
  int p6 = 0;
  for (std::size_t i = 1; i <= 32; ++i) {
    (w.right.arrivals[i].psn >= 6000 ? p6 : p1)++;
  }
  EXPECT_EQ(p1, 24);
  EXPECT_EQ(p6, 8);
}

TEST(EgressPort, DeficitRoundRobinGivesAllBandwidthToTheOnlyBackloggedQueue) {
  SchedulingConfig dwrr;
  dwrr.policy = SchedulingPolicy::kDeficitRoundRobin;
  dwrr.quantum_bytes = {100, 100, 100, 100, 100, 100, 100, 100};  // smaller than a frame
  Wire w(dwrr);
  for (uint32_t i = 0; i < 5; ++i) w.send(2, i);
  w.kernel.run();
  ASSERT_EQ(w.right.arrivals.size(), 5u);
  EXPECT_EQ(w.right.arrivals[4].at, Time::ps(5 * kFramePs + kPropagationPs));
}

TEST(EgressPort, ControlFrameWaitsForTheFrameOnTheWireThenGoesFirst) {
  Wire w;
  w.send(0, 1);  // on the wire during [0, 88,480)
  w.send(7, 2);  // queued
  w.kernel.run_until(Time::ns(10));
  w.out.send_control(make_pause(1, 10));
  w.kernel.run();
  ASSERT_EQ(w.right.arrivals.size(), 3u);
  EXPECT_EQ(w.right.arrivals[0].psn, 1u);
  // The pause (64 + 20 bytes = 6,720 ps) starts when the data frame ends, not at 10 ns.
  EXPECT_TRUE(w.right.arrivals[1].control);
  EXPECT_EQ(w.right.arrivals[1].at, Time::ps(kFramePs + 6'720 + kPropagationPs));
  // The queued data frame, even at priority 7, follows the pause.
  EXPECT_EQ(w.right.arrivals[2].psn, 2u);
  EXPECT_EQ(w.right.arrivals[2].at, Time::ps(kFramePs + 6'720 + kFramePs + kPropagationPs));
  EXPECT_EQ(w.out.counters().control_frames_sent, 1u);
}

TEST(EgressPort, WaitingPauseFramesMergeIntoOneWithTheLatestStatePerPriority) {
  Wire w;
  w.send(0, 1);  // keeps the wire busy while the pauses are queued
  w.out.send_control(make_pause(1u << 3, 100));
  w.out.send_control(make_pause(1u << 5, 200));
  w.out.send_control(make_pause(1u << 3, 0));  // priority 3 resumes before anything went out
  EXPECT_EQ(w.out.counters().control_frames_merged, 2u);
  w.kernel.run();
  ASSERT_EQ(w.right.arrivals.size(), 2u);
  const ControlFrame& f = w.right.arrivals[1].frame;
  EXPECT_EQ(f.class_enable, (1u << 3) | (1u << 5));
  EXPECT_EQ(f.pause_quanta[3], 0);
  EXPECT_EQ(f.pause_quanta[5], 200);
  EXPECT_EQ(w.out.counters().control_frames_sent, 1u);
  // A pause already on the wire is not changed: the next one is a new frame.
  w.out.send_control(make_pause(1u << 3, 7));
  w.out.send_control(make_pause(1u << 3, 8));
  w.kernel.run();
  EXPECT_EQ(w.out.counters().control_frames_sent, 3u);
  EXPECT_EQ(w.right.arrivals.back().frame.pause_quanta[3], 8);
}

// A gate the test opens and closes by hand.
class ManualGate final : public EgressGate {
 public:
  void on_control(const ControlFrame&) override {}
  void shut(int p) { close(p); }
  void let(int p) { open(p); }
};

TEST(EgressPort, ClosedPriorityWaitsWhileOthersFlowAndOpeningWakesThePort) {
  Wire w;
  auto gate = std::make_unique<ManualGate>();
  ManualGate* g = gate.get();
  w.out.set_gate(std::move(gate));
  g->shut(5);
  w.send(5, 50);
  w.send(5, 51);
  w.send(2, 20);
  w.kernel.run_until(Time::us(10));
  ASSERT_EQ(w.right.arrivals.size(), 1u);
  EXPECT_EQ(w.right.arrivals[0].psn, 20u);
  EXPECT_EQ(w.out.queue_packets(5), 2u);
  EXPECT_EQ(w.kernel.pending(), 0u) << "a port with only gated frames schedules nothing";
  g->let(5);
  w.kernel.run();
  ASSERT_EQ(w.right.arrivals.size(), 3u);
  EXPECT_EQ(w.right.arrivals[1].at, Time::ps(10'000'000 + kFramePs + kPropagationPs));
  EXPECT_EQ(w.right.arrivals[2].psn, 51u);
}

// A credit-style gate: admits a frame only if it fits the remaining credit.
class CreditGate final : public EgressGate {
 public:
  CreditGate() : EgressGate(/*checks_frame_size=*/true) {}
  bool may_send(int, uint32_t frame_bytes) const override { return frame_bytes <= credit; }
  void on_transmit(int, uint32_t frame_bytes) override { credit -= frame_bytes; }
  void on_control(const ControlFrame&) override {}
  void grant(uint32_t bytes) {
    credit += bytes;
    if (port() != nullptr) port()->wake();
  }
  uint32_t credit = 0;
};

TEST(EgressPort, SizeCheckingGateIsAskedPerFrame) {
  Wire w;
  auto gate = std::make_unique<CreditGate>();
  CreditGate* g = gate.get();
  g->credit = 1086 + 500;
  w.out.set_gate(std::move(gate));
  w.send(0, 1);
  w.send(0, 2);
  w.kernel.run();
  ASSERT_EQ(w.right.arrivals.size(), 1u);
  EXPECT_EQ(g->credit, 500u);
  g->grant(586);
  w.kernel.run();
  EXPECT_EQ(w.right.arrivals.size(), 2u);
  EXPECT_EQ(g->credit, 0u);
}

TEST(EgressPort, ListenerHearsEachDequeueWithItsTag) {
  struct Listener final : EgressListener {
    std::vector<uint32_t> tags;
    void on_dequeue(uint32_t, int, uint32_t, uint32_t tag) override { tags.push_back(tag); }
  } listener;
  Wire w;
  w.out.set_listener(&listener);
  for (uint32_t t = 1; t <= 3; ++t) {
    w.out.enqueue(0, QueuedPacket{data_packet(testing::host_ip(0), testing::host_ip(1), 8), 74, t});
  }
  w.kernel.run();
  EXPECT_EQ(listener.tags, (std::vector<uint32_t>{1, 2, 3}));
}

TEST(EgressPort, ConfigurationErrors) {
  sim::EventKernel kernel;
  EgressPort lonely(kernel, 9, {});
  EXPECT_THROW(lonely.enqueue(0, QueuedPacket{world::make_packet(), 64, 0}), Error);
  SchedulingConfig bad;
  bad.policy = SchedulingPolicy::kDeficitRoundRobin;
  bad.quantum_bytes[4] = 0;
  EXPECT_THROW(EgressPort(kernel, 0, bad), Error);
  Wire w;
  w.send(0, 1);
  w.send(0, 2);
  EXPECT_THROW(w.out.set_scheduling(SchedulingConfig{}), Error) << "frames are queued";
  Recorder r;
  EXPECT_THROW(Link(w.kernel, LinkConfig{}, LinkEnd{&r, 0, &w.out}, LinkEnd{&r, 0, &lonely}), Error)
      << "w.out already feeds a link";
}

}  // namespace
}  // namespace bifrost::net
