#include "bifrost/world/packet.h"

#include <gtest/gtest.h>

#include "bifrost/world/packet_port.h"

namespace bifrost::world {
namespace {

TEST(PacketPool, RecyclesPacketsClearedWithoutNewAllocations) {
  Packet* first_address = nullptr;
  {
    PacketPtr p = make_packet();
    first_address = p.get();
    p->roce.bth.psn = 77;
    p->payload.length = 3;
    p->payload.bytes.assign(3, std::byte{0xAB});
  }
  const std::size_t before = packets_allocated();
  PacketPtr again = make_packet();
  EXPECT_EQ(again.get(), first_address) << "a freed packet is reused";
  EXPECT_EQ(packets_allocated(), before);
  EXPECT_EQ(again->roce.bth.psn, 0u);
  EXPECT_EQ(again->payload.length, 0u);
  EXPECT_TRUE(again->payload.bytes.empty());
  EXPECT_GE(again->payload.bytes.capacity(), 3u) << "buffer capacity survives recycling";
}

class LoopbackPort final : public PacketPort {
 public:
  void send(PacketPtr packet) override { deliver(std::move(packet)); }
};

TEST(PacketPort, DeliversToHandlerOrCountsDrops) {
  LoopbackPort port;
  port.send(make_packet());
  EXPECT_EQ(port.dropped_without_handler(), 1u);
  uint32_t got_psn = 0;
  port.set_receive_handler([&](PacketPtr p) { got_psn = p->roce.bth.psn; });
  PacketPtr p = make_packet();
  p->roce.bth.psn = 0xABCDEF;
  port.send(std::move(p));
  EXPECT_EQ(got_psn, 0xABCDEFu);
  EXPECT_EQ(port.dropped_without_handler(), 1u);
}

}  // namespace
}  // namespace bifrost::world
