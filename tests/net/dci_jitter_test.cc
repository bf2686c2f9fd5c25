// Fibre jitter, the leak source DCI's guard and Delta account for (LinkConfig::jitter): each
// frame arrives within [0, jitter] of its jitter-free time, never before the frame sent ahead
// of it, and the same seed gives the same delays.
#include <gtest/gtest.h>

#include <vector>

#include "bifrost/core/error.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

using testing::Network;

constexpr Time kJitter = Time::ns(5);
constexpr Time kPropagation = Time::us(3);

// Arrival times of 200 back-to-back 1000-byte packets.
std::vector<Time> arrivals(uint64_t seed, Time jitter) {
  Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  net.links.emplace_back(
      net.kernel,
      LinkConfig{
          .rate = Rate::Gbps(100), .propagation = kPropagation, .seed = seed, .jitter = jitter},
      a.port(), b.port());
  std::vector<Time> at;
  b.set_receive_handler([&at, &net](world::PacketPtr) { at.push_back(net.kernel.now()); });
  for (int i = 0; i < 200; ++i) {
    a.send(testing::data_packet(testing::host_ip(0), testing::host_ip(1), 1000));
  }
  net.kernel.run();
  return at;
}

TEST(LinkJitter, DelaysAreBoundedInOrderAndSeeded) {
  const std::vector<Time> plain = arrivals(1, Time::zero());
  const std::vector<Time> jittered = arrivals(1, kJitter);
  ASSERT_EQ(plain.size(), 200u);
  ASSERT_EQ(jittered.size(), 200u);
  Time most = Time::zero();
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_GE(jittered[i], plain[i]);
    EXPECT_LE(jittered[i], plain[i] + kJitter);
    if (i > 0) {
      EXPECT_GE(jittered[i], jittered[i - 1]);
    }
    most = std::max(most, jittered[i] - plain[i]);
  }
  EXPECT_GT(most, Time::ns(3)) << "the jitter is drawn, not zero";
  EXPECT_EQ(arrivals(1, kJitter), jittered);
  EXPECT_NE(arrivals(2, kJitter), jittered);
}

TEST(LinkJitter, RejectsNegativeJitterAndLeavesThePortsFree) {
  Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  EXPECT_THROW(
      net.links.emplace_back(net.kernel, LinkConfig{.jitter = Time::ps(-1)}, a.port(), b.port()),
      Error);
  EXPECT_EQ(a.nic().channel(), nullptr);
}

}  // namespace
}  // namespace bifrost::net
