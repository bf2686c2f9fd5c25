// The modelled host cost per completion (EndpointConfig::completion_cost): the endpoint takes
// one completion at a time, the ACK CQ first, so an ACK on the data QP waits behind the data
// completions ahead of it and one on the UD QP does not (§3.4.3, A.4).
#include <gtest/gtest.h>

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

// Side 0 sends 64 messages of 4 KiB at once: their 64 send completions reach its data CQ within
// ~21 us at 100 Gb/s, faster than a 1 us host handles them, and the ACKs come back meanwhile.
// Returns side 0's endpoint counters; every message must arrive once.
EndpointStats sender_endpoint(AckPath path, Time cost) {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  c.transport.ack_path = path;
  c.endpoint.completion_cost = cost;
  TransportPair pair(c);
  for (int i = 0; i < 64; ++i) pair.send(0, 4096);
  EXPECT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  return pair.sim().side(0).endpoint->stats();
}

TEST(EndpointCompletionCost, AnAckOnTheDataQpWaitsBehindDataCompletions) {
  const EndpointStats instant = sender_endpoint(AckPath::data_qp, Time::zero());
  EXPECT_EQ(instant.receive_completions, 0u) << "no cost: not measured, nothing waits";
  EXPECT_EQ(instant.receive_wait_max, Time::zero());

  const Time cost = Time::us(1);
  const EndpointStats on_data_qp = sender_endpoint(AckPath::data_qp, cost);
  const EndpointStats on_ud_qp = sender_endpoint(AckPath::ud, cost);
  ASSERT_GT(on_data_qp.receive_completions, 0u);
  ASSERT_GT(on_ud_qp.receive_completions, 0u);
  // On the UD QP an ACK waits at most for the completion being handled (and another ACK); on
  // the data QP also for the send completions queued ahead of it.
  EXPECT_LE(on_ud_qp.receive_wait_max, 2 * cost);
  EXPECT_GT(on_data_qp.receive_wait_max, 4 * cost);
}

}  // namespace
}  // namespace bifrost::transport
