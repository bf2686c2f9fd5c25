// What the ConnectX-3 Pro profile changes on the data path, end to end on two soft RNICs: its
// go-back-N that sends nothing of the next verb until a retransmitted verb is acknowledged
// (RoGUE §5.2), and per-priority limiters given to QPs one each without distinct classes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/wire/frame.h"
#include "data_path_support.h"

namespace bifrost::rnic {
namespace {

using namespace bifrost::rnic::testing;

struct Sent {
  Time at;
  uint32_t psn = 0;
};

// Sees every data packet towards `dest_qp` as it is handed to the wire; drops the first copy
// of PSN `drop_psn` (if set) and records the rest, with their frame bytes.
struct Tap {
  world::Scheduler* clock = nullptr;
  uint32_t dest_qp = 0;
  std::optional<uint32_t> drop_psn;
  std::vector<Sent> sent;
  uint64_t frame_bytes = 0;

  bool operator()(const world::Packet& p) {
    if (p.roce.bth.dest_qp != dest_qp || p.roce.bth.opcode == wire::Opcode::kRcAcknowledge) {
      return false;
    }
    frame_bytes += wire::ethernet_frame_size(p.roce, p.payload.length);
    if (drop_psn == p.roce.bth.psn) {
      drop_psn.reset();
      return true;
    }
    sent.push_back({clock->now(), p.roce.bth.psn});
    return false;
  }
};

// Posts `count` 2,048-byte WRITEs (two 1 KB packets each) from a to b, runs the wire until
// idle, and checks that each completed successfully, in order.
void write_verbs_and_run(NicPair& pair, uint64_t count) {
  NicPair::Side& a = pair.a();
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t addr = NicPair::kBufferBase + i * 2048;
    a.qp->post_send(make_remote(i, WrOpcode::rdma_write, a, addr, 2048, addr, pair.b().mr->rkey));
  }
  pair.kernel().run();
  const std::vector<WorkCompletion> done = a.poll();
  ASSERT_EQ(done.size(), count);
  for (size_t i = 0; i < done.size(); ++i) {
    EXPECT_EQ(done[i].wr_id, i);
    EXPECT_EQ(done[i].status, WcStatus::success);
  }
}

// The gaps before each retransmitted verb's first packet (PSNs 2, 4, 6 sent the second time)
// when four 2-packet WRITEs lose PSN 1, the last packet of the first.
std::vector<Time> gaps_before_resent_verbs(bool serialize) {
  NicPairConfig config;
  config.mtu = 1024;
  config.wire.rate = Rate::Gbps(10);
  config.wire.delay = Time::us(5);
  config.device.data_path.serialize_verbs_after_retransmission = serialize;
  NicPair pair(config);
  Tap tap{&pair.kernel(), pair.b().qp->qp_num(), 1u, {}, 0};
  pair.wire().set_drop_filter(0, [&tap](const world::Packet& p) { return tap(p); });
  write_verbs_and_run(pair, 4);
  EXPECT_EQ(pair.a().device->data_path_counters().tx_retransmitted, 7u);  // PSNs 1..7
  // First copies of 0 and 2..7, then the resends 1..7.
  std::vector<uint32_t> order;
  for (const Sent& s : tap.sent) order.push_back(s.psn);
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7}));
  std::vector<Time> gaps;
  for (const size_t i : {8u, 10u, 12u}) gaps.push_back(tap.sent[i].at - tap.sent[i - 1].at);
  return gaps;
}

TEST(Cx3ProGoBackN, AfterARetransmissionEachVerbWaitsForThePreviousOnesAck) {
  // Serialised: each resent verb leaves only after the one before it was acknowledged, a
  // round trip of two 5 us wire delays at least.
  for (const Time gap : gaps_before_resent_verbs(true)) EXPECT_GE(gap, Time::us(10));
  // Plain go-back-N resends them back to back.
  for (const Time gap : gaps_before_resent_verbs(false)) EXPECT_LT(gap, Time::us(1));
}

TEST(Cx3ProGoBackN, TheWaitEndsWhenTheResendsAckIsLostAndTheTimerFires) {
  NicPairConfig config;
  config.mtu = 1024;
  config.timeout = 8;  // 1 ms
  config.device.data_path.serialize_verbs_after_retransmission = true;
  NicPair pair(config);
  Tap tap{&pair.kernel(), pair.b().qp->qp_num(), 1u, {}, 0};
  pair.wire().set_drop_filter(0, [&tap](const world::Packet& p) { return tap(p); });
  // The NAK goes, but every ACK of PSN 1 onwards is lost for the first 500 us: the resent
  // verb's ACK never arrives and only the timer (1 ms) can end the wait.
  world::Scheduler* clock = &pair.kernel();
  pair.wire().set_drop_filter(1, [clock](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kRcAcknowledge &&
           wire::ack_kind(p.roce.aeth) == wire::AckKind::kAck && p.roce.bth.psn >= 1 &&
           clock->now() < Time::us(500);
  });
  write_verbs_and_run(pair, 2);
  EXPECT_EQ(pair.a().device->data_path_counters().timeouts, 1u);
}

TEST(Cx3ProLimiters, QpsOfOneClassArePacedByTheLimitersAssignedToThem) {
  NicPairConfig config;
  config.mtu = 2048;
  config.wire.rate = Rate::Gbps(10);
  config.device.per_priority_limiters = 8;
  NicPair pair(config);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();
  const NicPair::QpPair second = pair.add_qp_pair();  // same traffic class (0) as the first
  a.device->assign_limiter(*a.qp, 0);
  a.device->assign_limiter(*second.a, 1);
  a.device->set_rate_limit(*a.qp, Rate::Gbps(1));
  a.device->set_rate_limit(*second.a, Rate::Gbps(4));

  Tap slow{&pair.kernel(), b.qp->qp_num(), std::nullopt, {}, 0};
  Tap fast{&pair.kernel(), second.b->qp_num(), std::nullopt, {}, 0};
  pair.wire().set_drop_filter(
      0, [&slow, &fast](const world::Packet& p) { return slow(p) || fast(p); });
  constexpr uint32_t kBytes = 256 * 1024;
  a.qp->post_send(make_remote(1, WrOpcode::rdma_write, a, NicPair::kBufferBase, kBytes,
                              NicPair::kBufferBase, b.mr->rkey));
  SendWr wr = make_remote(2, WrOpcode::rdma_write, a, NicPair::kBufferBase + kBytes, kBytes,
                          NicPair::kBufferBase + kBytes, b.mr->rkey);
  second.a->post_send(wr);
  pair.kernel().run();

  // Each limiter metered its own QP's frames only.
  EXPECT_EQ(a.device->rate_limiter(*a.qp)->transmitted(), Bytes(slow.frame_bytes));
  EXPECT_EQ(a.device->rate_limiter(*second.a)->transmitted(), Bytes(fast.frame_bytes));
  ASSERT_EQ(slow.sent.size(), 128u);
  ASSERT_EQ(fast.sent.size(), 128u);
  // Each QP's last packet starts when its own rate allows, less one 4 KB burst of credit.
  const Time slow_end = slow.sent.back().at;
  const Time fast_end = fast.sent.back().at;
  const uint64_t frame = wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, 2048);
  EXPECT_GE(slow_end, serialization_time(Bytes(127 * frame - 4096), Rate::Gbps(1)));
  EXPECT_GE(fast_end, serialization_time(Bytes(127 * frame - 4096), Rate::Gbps(4)));
  EXPECT_LE(fast_end, serialization_time(Bytes(128 * frame + 4096), Rate::Gbps(4)));
}

}  // namespace
}  // namespace bifrost::rnic
