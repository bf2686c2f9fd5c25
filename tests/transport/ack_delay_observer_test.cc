// Connection::set_ack_delay_observer (A.4, Fig. 16): every software ACK reports the receiver's
// ACK delay T3' - T2, which the coalescing rule sets (the 120 us timer for a lone, unhinted
// WQE; nothing when every WQE is acknowledged at once), and the sender's local delay from the
// ACK's arrival to processing it, which the simulated endpoint (it polls at once) keeps at zero.
#include <gtest/gtest.h>

#include <vector>

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

struct Delays {
  std::vector<Time> ack, local;
  uint64_t acks_received = 0;
};

// 50 lone 4 KiB messages, 250 us apart, with ACKs coalescing `ack_every` WQEs.
Delays run(uint32_t ack_every) {
  testing::TransportPairConfig config;
  config.wire.delay = Time::us(3);
  config.transport.hint_when_idle = false;  // a lone WQE waits for a count or the timer
  config.transport.ack_every_wqes = ack_every;
  testing::TransportPair pair(config);
  Delays d;
  pair.side(0).connection->set_ack_delay_observer([&d](Time ack, Time local) {
    d.ack.push_back(ack);
    d.local.push_back(local);
  });
  for (int i = 0; i < 50; ++i) {
    pair.send(0, 4096);
    pair.kernel().run_until(Time::us(250) * (i + 1));
  }
  EXPECT_TRUE(pair.run_until_done(pair.kernel().now() + Time::ms(5)));
  EXPECT_TRUE(pair.all_delivered_once());
  d.acks_received = pair.side(0).connection->sender_stats().acks_received;
  return d;
}

TEST(AckDelayObserver, SeesEveryAckWithTheCoalescingDelay) {
  const Delays timer = run(32);
  ASSERT_EQ(timer.ack.size(), timer.acks_received);
  ASSERT_GE(timer.ack.size(), 50u);
  for (size_t i = 0; i < timer.ack.size(); ++i) {
    EXPECT_GE(timer.ack[i], Time::us(120)) << i;  // waited for the receiver's timer
    EXPECT_LT(timer.ack[i], Time::us(125)) << i;
    EXPECT_EQ(timer.local[i], Time::zero()) << i;
  }
  const Delays immediate = run(1);
  ASSERT_EQ(immediate.ack.size(), immediate.acks_received);
  for (const Time t : immediate.ack) EXPECT_LT(t, Time::us(2));
}

}  // namespace
}  // namespace bifrost::transport
