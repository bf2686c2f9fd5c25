// LossyWire's random loss per direction: the configured rate both ways, or one direction made
// lossless (set_loss), as bifrost-rnic-loss --loss-on data does.
#include "bifrost/sim/lossy_wire.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "bifrost/core/error.h"
#include "bifrost/sim/event_kernel.h"

namespace bifrost::sim {
namespace {

// Sends `n` packets from each end and returns how many arrived at each: [0] what end 0 sent.
std::array<uint64_t, 2> exchange(LossyWire& wire, EventKernel& kernel, int n) {
  std::array<uint64_t, 2> arrived{};
  wire.end(1).set_receive_handler([&arrived](world::PacketPtr) { ++arrived[0]; });
  wire.end(0).set_receive_handler([&arrived](world::PacketPtr) { ++arrived[1]; });
  for (int i = 0; i < n; ++i) {
    for (int side = 0; side < 2; ++side) wire.end(side).send(world::make_packet());
  }
  kernel.run();
  return arrived;
}

TEST(LossyWire, LosesOnBothDirectionsUnlessOneIsMadeLossless) {
  constexpr int kPackets = 4000;
  {
    EventKernel kernel;
    LossyWire wire(kernel, LossyWireConfig{.loss = 0.25});
    const auto arrived = exchange(wire, kernel, kPackets);
    EXPECT_NEAR(static_cast<double>(arrived[0]) / kPackets, 0.75, 0.03);
    EXPECT_NEAR(static_cast<double>(arrived[1]) / kPackets, 0.75, 0.03);
    EXPECT_EQ(wire.counters(0).lost + arrived[0], uint64_t{kPackets});
  }
  EventKernel kernel;
  LossyWire wire(kernel, LossyWireConfig{.loss = 0.25});
  wire.set_loss(1, 0);
  const auto arrived = exchange(wire, kernel, kPackets);
  EXPECT_NEAR(static_cast<double>(arrived[0]) / kPackets, 0.75, 0.03);
  EXPECT_EQ(arrived[1], uint64_t{kPackets});
  EXPECT_EQ(wire.counters(1).lost, 0u);
  EXPECT_THROW(wire.set_loss(0, 1.0), Error);
  EXPECT_THROW(wire.set_loss(0, -0.1), Error);
}

}  // namespace
}  // namespace bifrost::sim
