// The modelled host cost per completion (EndpointConfig::completion_cost): the endpoint takes
// one completion at a time, the ACK CQ first, so an ACK on the data QP waits behind the data
// completions ahead of it and one on the UD QP does not (§3.4.3, A.4).
#include <gtest/gtest.h>

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

// Side 0 sends 16 messages of 256 KiB (64 KiB chunks and their send completions) and returns
// its endpoint's counters; every message must arrive once.
EndpointStats sender_endpoint(AckPath path, Time cost) {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  c.transport.ack_path = path;
  c.endpoint.completion_cost = cost;
  TransportPair pair(c);
  for (int i = 0; i < 16; ++i) pair.send(0, 256 * 1024);
  EXPECT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  return pair.sim().side(0).endpoint->stats();
}

TEST(EndpointCompletionCost, AnAckOnTheDataQpWaitsBehindDataCompletions) {
  const EndpointStats instant = sender_endpoint(AckPath::data_qp, Time::zero());
  EXPECT_GT(instant.receive_completions, 0u);
  EXPECT_EQ(instant.receive_wait_max, Time::zero()) << "no cost: nothing waits";

  // Longer than a 64 KiB chunk's 5.2 us at 100 Gb/s, so completions queue up.
  const Time cost = Time::us(8);
  const EndpointStats on_data_qp = sender_endpoint(AckPath::data_qp, cost);
  const EndpointStats on_ud_qp = sender_endpoint(AckPath::ud, cost);
  ASSERT_GT(on_data_qp.receive_completions, 0u);
  ASSERT_GT(on_ud_qp.receive_completions, 0u);
  // On the UD QP an ACK waits at most for the completion being handled and other ACKs; on the
  // data QP also for the send completions queued ahead of it.
  EXPECT_GT(on_data_qp.receive_wait_max, on_ud_qp.receive_wait_max);
  EXPECT_GT(on_data_qp.receive_wait_max, 2 * cost);
}

}  // namespace
}  // namespace bifrost::transport
