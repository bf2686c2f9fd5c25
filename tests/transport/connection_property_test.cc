// Property: over random loss, duplication and reordering in both directions, every message of
// random size (1 B .. 4 MiB, both ways at once) is delivered exactly once with its bytes intact,
// and every sender learns it.
#include <gtest/gtest.h>

#include <algorithm>

#include "bifrost/core/rng.h"
#include "support/property.h"
#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

uint64_t random_size(RandomStream& r) {
  switch (r.uniform_int(0, 9)) {
    case 0:
      return r.uniform_int(8, 64);
    case 1:
      return r.uniform_int(2u << 20, 4u << 20);
    case 2:
    case 3:
    case 4:
      return r.uniform_int(32 * 1024 + 1, 1u << 20);
    default:
      return r.uniform_int(8, 32 * 1024);
  }
}

void run_seed(uint64_t seed, Reliability reliability, double max_loss,
              AckPath ack_path = AckPath::ud) {
  RandomStream r(seed, "transport-property");
  TransportPairConfig c = testing::random_lossy_config(r, seed, reliability, max_loss);
  c.transport.ack_path = ack_path;
  c.transport.chunking = r.bernoulli(0.8);
  if (c.transport.unit_size == 1024) c.transport.imm = ImmLayout{19, 12};  // 4 MiB messages
  TransportPair pair(c);
  const int messages = static_cast<int>(r.uniform_int(20, 60));
  for (int i = 0; i < messages; ++i) {
    pair.send(static_cast<int>(r.uniform_int(0, 1)), random_size(r));
  }
  const bool finished = pair.run_until_done(Time::s(5));
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " loss " << c.wire.loss << " dup "
                                    << c.wire.duplicate << " reorder " << c.wire.reorder);
  if (!finished) {
    for (int s = 0; s < 2; ++s) {
      const auto& st = pair.side(s).connection->sender_stats();
      const auto& rs = pair.side(s).connection->receiver_stats();
      ADD_FAILURE() << "side " << s << " sent " << st.messages_sent << "/"
                    << pair.side(s).sent.size() << " wqes " << st.wqes_posted << " retx "
                    << st.retransmitted_wqes << " lost " << st.losses_detected << " timeouts "
                    << st.timeouts << " acks " << st.acks_received << " stale " << st.stale_acks
                    << " window " << pair.side(s).connection->window_bytes() << " | recv delivered "
                    << rs.messages_delivered << " dup " << rs.duplicates << " malformed "
                    << rs.malformed << " oow " << rs.out_of_window << " deferred "
                    << rs.grants_deferred << " acks " << rs.acks_sent;
    }
  }
  ASSERT_TRUE(finished);
  EXPECT_TRUE(pair.all_delivered_once());
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(pair.side(s).connection->receiver_stats().malformed, 0u);
    EXPECT_TRUE(pair.side(s).connection->idle());
  }
}

TEST(ConnectionProperty, SoftwareUcDeliversExactlyOnceUnderLossDupAndReorder) {
  for (const uint64_t seed : bifrost::testing::property_seeds()) {
    run_seed(seed, Reliability::software_uc, 0.05);
    if (::testing::Test::HasFailure()) return;
  }
}

// ACKs as SENDs on the data QP (the alternative Fig. 4(b) measures): lost, duplicated and
// reordered like the data they share the QP with, never retransmitted.
TEST(ConnectionProperty, SoftwareUcWithAcksOnTheDataQpDeliversExactlyOnce) {
  for (const uint64_t seed : bifrost::testing::property_seeds(10)) {
    run_seed(seed, Reliability::software_uc, 0.05, AckPath::data_qp);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ConnectionProperty, HardwareRcDeliversExactlyOnceUnderLossDupAndReorder) {
  for (const uint64_t seed : bifrost::testing::property_seeds()) {
    run_seed(seed, Reliability::hardware_rc, 0.01);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace bifrost::transport
