// When UC/UD sends complete relative to the port (DeviceConfig::complete_sends_at_transmit) and
// payloads borrowed from memory instead of copied (DataPathConfig::zero_copy_transmit): the
// real world's transmit path, driven here by a port the test releases packet by packet.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "manual_scheduler.h"
#include "support/error_message.h"

namespace bifrost::rnic {
namespace {

using testing::error_of;
using testing::ManualScheduler;

constexpr uint64_t kBase = 0x10000;
constexpr uint32_t kMtu = 1024;

// Keeps what the device sends until the test says the port took it.
class HeldPort final : public world::PacketPort {
 public:
  void send(world::PacketPtr packet) override { held.push_back(std::move(packet)); }
  // The oldest held packet left at `departure` (zero: the port does not know when).
  world::PacketPtr take(Time departure = Time::zero()) {
    world::PacketPtr p = std::move(held.front());
    held.pop_front();
    transmitted(departure);
    return p;
  }
  void arrive(world::PacketPtr packet) { deliver(std::move(packet)); }
  std::deque<world::PacketPtr> held;
};

DeviceConfig with_gid(DeviceConfig c) {
  c.gids = {world::Ipv4::of(10, 0, 0, 1)};
  return c;
}

std::vector<WorkCompletion> poll(CompletionQueue& cq) {
  std::vector<WorkCompletion> out(16);
  out.resize(cq.poll(out.size(), out));
  return out;
}

struct Sender {
  explicit Sender(const DeviceConfig& config, bool byte_memory = true, QpType type = QpType::uc)
      : device(scheduler, with_gid(config)) {
    device.attach(port);
    const ProtectionDomain pd = device.alloc_pd();
    cq = &device.create_cq(64);
    qp = &device.create_qp(pd, type, *cq, *cq);
    if (byte_memory) {
      auto bytes = std::make_unique<ByteMemory>(kBase, 1 << 16);
      for (size_t i = 0; i < bytes->bytes().size(); ++i) {
        bytes->bytes()[i] = static_cast<std::byte>(i * 7);
      }
      memory = std::move(bytes);
    } else {
      memory = std::make_unique<TokenMemory>(kBase, 1 << 16);
    }
    mr = &device.reg_mr(pd, kBase, 1 << 16, Access::local_write, memory.get());
    QpConnection c;
    c.dest_ip = world::Ipv4::of(10, 0, 0, 2);
    c.dest_qp_num = 0x77;
    c.path_mtu = kMtu;
    connect_qp(*qp, c);
  }
  void send(uint64_t id, uint32_t length) {
    SendWr wr;
    wr.wr_id = id;
    wr.opcode = WrOpcode::send;
    wr.sge = Sge{kBase, length, mr->lkey};
    qp->post_send(wr);
  }

  ManualScheduler scheduler;
  HeldPort port;
  Device device;
  CompletionQueue* cq = nullptr;
  QueuePair* qp = nullptr;
  std::unique_ptr<HostMemory> memory;
  const MemoryRegion* mr = nullptr;
};

// The peer's RC ACK of everything up to `psn`.
world::PacketPtr ack_of(const QueuePair& qp, uint32_t psn) {
  world::PacketPtr ack = world::make_packet();
  ack->roce.bth.opcode = wire::Opcode::kRcAcknowledge;
  ack->roce.bth.dest_qp = qp.qp_num();
  ack->roce.bth.psn = psn;
  ack->roce.aeth = wire::make_ack(1);
  return ack;
}

DeviceConfig at_transmit() {
  DeviceConfig c;
  c.port_queue_packets = 8;
  c.complete_sends_at_transmit = true;
  return c;
}

TEST(TransmitCompletion, ByDefaultASendCompletesWhenItsLastPacketIsHandedToThePort) {
  DeviceConfig c;
  c.port_queue_packets = 8;
  Sender s(c);
  s.scheduler.now_ = Time::us(5);
  s.send(1, 3 * kMtu);
  ASSERT_EQ(s.port.held.size(), 3u);
  const auto wcs = poll(*s.cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].hw_timestamp, Time::us(5));
}

TEST(TransmitCompletion, AtTransmitASendCompletesWhenThePortTookItsLastPacket) {
  Sender s(at_transmit());
  s.send(1, 3 * kMtu);
  s.send(2, 100);
  ASSERT_EQ(s.port.held.size(), 4u);
  EXPECT_TRUE(poll(*s.cq).empty());
  s.port.take();
  s.port.take();
  EXPECT_TRUE(poll(*s.cq).empty()) << "two of the first send's three packets left";
  s.scheduler.now_ = Time::us(9);
  s.port.take(Time::us(7));  // the port knows better than now
  auto wcs = poll(*s.cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wr_id, 1u);
  EXPECT_EQ(wcs[0].hw_timestamp, Time::us(7));
  s.port.take();  // no departure given: now
  wcs = poll(*s.cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wr_id, 2u);
  EXPECT_EQ(wcs[0].hw_timestamp, Time::us(9));
}

TEST(TransmitCompletion, DetachingCompletesWhatThePortHeld) {
  Sender s(at_transmit());
  s.send(1, 2 * kMtu);
  EXPECT_TRUE(poll(*s.cq).empty());
  s.device.detach();
  EXPECT_EQ(poll(*s.cq).size(), 1u);
}

TEST(TransmitCompletion, DestroyingTheQpDropsItsHeldCompletions) {
  Sender s(at_transmit());
  s.send(1, kMtu);
  s.device.destroy_qp(s.qp->qp_num());
  s.port.take();
  EXPECT_TRUE(poll(*s.cq).empty());
}

// A device going away completes nothing: its CQs go with it, and their handlers belong to a
// consumer (a transport endpoint) that may already be gone. Tearing down a pair of endpoints
// over devices with completions at transmit once called such a handler after its owner died.
TEST(TransmitCompletion, DestroyingTheDeviceCallsNoCompletionHandler) {
  auto s = std::make_unique<Sender>(at_transmit());
  int handled = 0;
  s->cq->set_handler([&handled] { ++handled; });
  s->send(1, 2 * kMtu);
  ASSERT_EQ(s->port.held.size(), 2u);
  s.reset();
  EXPECT_EQ(handled, 0);
}

// RC completes at the ACK; with completions at transmit its CQE also says when the request's
// last packet left, so software RTT need not guess how long it waited in the NIC.
TEST(TransmitCompletion, RcCompletionsCarryWhenTheLastPacketLeft) {
  Sender s(at_transmit(), true, QpType::rc);
  s.send(1, 2 * kMtu);
  ASSERT_EQ(s.port.held.size(), 2u);
  s.port.take(Time::us(2));
  s.port.take(Time::us(3));
  s.scheduler.now_ = Time::us(10);
  s.port.arrive(ack_of(*s.qp, 1));
  const auto wcs = poll(*s.cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].sent_timestamp, Time::us(3));
  EXPECT_EQ(wcs[0].hw_timestamp, Time::us(10));
}

TEST(TransmitCompletion, WithoutItRcCompletionsHaveNoSentTimestamp) {
  DeviceConfig c;
  c.port_queue_packets = 8;
  Sender s(c, true, QpType::rc);
  s.send(1, kMtu);
  s.port.take(Time::us(2));
  s.port.arrive(ack_of(*s.qp, 0));
  const auto wcs = poll(*s.cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].sent_timestamp, Time::zero());
}

TEST(ZeroCopyTransmit, PayloadsBorrowTheRegionsBytes) {
  DeviceConfig c = at_transmit();
  c.data_path.zero_copy_transmit = true;
  Sender s(c);
  s.send(1, kMtu + 100);
  ASSERT_EQ(s.port.held.size(), 2u);
  const world::Payload& second = s.port.held[1]->payload;
  EXPECT_TRUE(second.bytes.empty());
  ASSERT_EQ(second.borrowed.size(), 100u);
  auto* bytes = static_cast<ByteMemory*>(s.memory.get());
  EXPECT_EQ(second.borrowed.data(), bytes->bytes().data() + kMtu) << "not a copy";
  std::vector<std::byte> out(100);
  materialize(second, out);
  EXPECT_EQ(std::memcmp(out.data(), bytes->bytes().data() + kMtu, 100), 0);
}

TEST(ZeroCopyTransmit, TokenMemoryStillNamesItsContentByToken) {
  DeviceConfig c = at_transmit();
  c.data_path.zero_copy_transmit = true;
  Sender s(c, /*byte_memory=*/false);
  s.send(1, 100);
  ASSERT_EQ(s.port.held.size(), 1u);
  EXPECT_TRUE(s.port.held[0]->payload.borrowed.empty());
  EXPECT_EQ(s.port.held[0]->payload.length, 100u);
}

TEST(ZeroCopyTransmit, NeedsCompletionsAtTransmit) {
  DeviceConfig c = with_gid({});
  c.data_path.zero_copy_transmit = true;
  ManualScheduler scheduler;
  EXPECT_NE(error_of([&] { Device d(scheduler, c); }).find("needs complete_sends_at_transmit"),
            std::string::npos);
}

TEST(ZeroCopyTransmit, OwningABorrowedPayloadCopiesIt) {
  const std::vector<std::byte> source(10, std::byte{0x5a});
  world::Payload p;
  p.length = 10;
  p.borrowed = source;
  p.own();
  EXPECT_TRUE(p.borrowed.empty());
  EXPECT_EQ(p.bytes, source);
  EXPECT_EQ(p.real_bytes().size(), 10u);
}

}  // namespace
}  // namespace bifrost::rnic
