// RpcChannel over a Bifröst connection on two soft RNICs: every request is answered exactly
// once with its own response (matched by id, whatever order responses complete in), under
// random loss, in token and in byte memory, never more than the depth outstanding; refused and
// unanswerable requests say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/transport/rpc.h"
#include "rpc_bench.h"

namespace bifrost::transport {
namespace {

using namespace testing_rpc;
using testing::TransportPair;
using testing::TransportPairConfig;

class RpcUnderLoss : public ::testing::TestWithParam<MemoryKind> {};

TEST_P(RpcUnderLoss, EveryRequestAnsweredOnceWithItsResponseWithinTheDepth) {
  for (const uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    TransportPairConfig c = lossless();
    c.endpoint.memory = GetParam();
    c.wire.loss = 0.02;
    c.wire.duplicate = 0.005;
    c.wire.reorder = 0.01;
    c.wire.seed = seed;
    RpcBench bench(c, RpcConfig{.depth = 8});
    RandomStream r(seed, "rpc-sizes");
    constexpr int kRequests = 200;
    for (int i = 0; i < kRequests; ++i) bench.call(random_request_size(r));
    // The depth holds the rest back in the queue, not in the connection.
    EXPECT_EQ(bench.client().queued(), kRequests - 8u);
    ASSERT_TRUE(bench.run(Time::s(5)));
    EXPECT_TRUE(bench.each_answered_once_correctly());
    EXPECT_LE(bench.max_in_service(), 8u);
    EXPECT_EQ(bench.client().stats().max_outstanding, 8u);
    EXPECT_EQ(bench.client().stats().responses, uint64_t{kRequests});
    EXPECT_EQ(bench.server().stats().requests_served, uint64_t{kRequests});
    EXPECT_EQ(bench.client().stats().malformed + bench.server().stats().malformed, 0u);
    EXPECT_GT(bench.pair().wire().counters(0).lost + bench.pair().wire().counters(1).lost, 0u);
    EXPECT_GT(bench.pair().side(0).connection->sender_stats().retransmitted_wqes +
                  bench.pair().side(1).connection->sender_stats().retransmitted_wqes,
              0u);
    bench.pair().kernel().run_until(bench.pair().kernel().now() + Time::ms(20));
    EXPECT_TRUE(bench.client().idle());
    EXPECT_TRUE(bench.server().idle());
  }
}

INSTANTIATE_TEST_SUITE_P(BothWorlds, RpcUnderLoss,
                         ::testing::Values(MemoryKind::tokens, MemoryKind::bytes),
                         [](const ::testing::TestParamInfo<MemoryKind>& kind) {
                           return kind.param == MemoryKind::tokens ? "tokens" : "bytes";
                         });

// A large request (write request, grant, WRITE chunks) goes first; the small ones after it are
// answered long before it, and every callback still gets the response to its own request.
TEST(Rpc, ResponsesCompletingOutOfOrderAreMatchedById) {
  RpcBench bench(lossless(), RpcConfig{.depth = 8});
  bench.call(1u << 20);
  for (int i = 0; i < 7; ++i) bench.call(64);
  ASSERT_TRUE(bench.run(Time::ms(50)));
  EXPECT_TRUE(bench.each_answered_once_correctly());
  const std::vector<uint64_t>& order = bench.completion_order();
  ASSERT_EQ(order.size(), 8u);
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end()));
  EXPECT_NE(order.front(), 0u);  // the large one did not finish first
}

TEST(Rpc, DepthOneIssuesOneRequestAtATime) {
  RpcBench bench(lossless(), RpcConfig{.depth = 1});
  for (int i = 0; i < 20; ++i) bench.call(100 + i);
  EXPECT_EQ(bench.client().outstanding(), 1u);
  ASSERT_TRUE(bench.run(Time::ms(50)));
  EXPECT_TRUE(bench.each_answered_once_correctly());
  EXPECT_EQ(bench.max_in_service(), 1u);
  EXPECT_EQ(bench.client().stats().max_outstanding, 1u);
  const std::vector<uint64_t>& order = bench.completion_order();
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

TEST(Rpc, OversizedAndOutOfRegionRequestsAreRefused) {
  RpcBench bench(lossless());
  RpcChannel& client = bench.client();
  TransportPair::Side& a = bench.pair().side(0);
  const uint64_t limit = client.max_body_bytes();
  EXPECT_EQ(limit, a.connection->config().max_message_size() - kRpcHeaderBytes);
  try {
    client.call(MessageBuffer{a.app_region, kRequestArea, limit + 1}, [](const RpcResponse&) {});
    ADD_FAILURE() << "an oversized request was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(limit)), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(client.call(MessageBuffer{nullptr, kRequestArea, 10}, {}), Error);
  EXPECT_THROW(client.call(MessageBuffer{a.app_region, a.app_region->base - 8, 10}, {}), Error);
  EXPECT_EQ(client.stats().calls, 0u);
  EXPECT_TRUE(client.idle());
  EXPECT_THROW(RpcChannel(*a.connection, RpcConfig{.depth = 0}), Error);
  // A request of exactly the limit goes.
  bench.call(limit);
  ASSERT_TRUE(bench.run(Time::ms(200)));
  EXPECT_TRUE(bench.each_answered_once_correctly());
}

TEST(Rpc, ServerWithoutHandlerAnswersNoHandler) {
  TransportPair pair(lossless());
  RpcChannel client(*pair.side(0).connection);
  RpcChannel server(*pair.side(1).connection);  // serve() never called
  TransportPair::Side& a = pair.side(0);
  a.app->fill(kRequestArea, 100, 7, 0);
  std::vector<RpcStatus> got;
  client.call(MessageBuffer{a.app_region, kRequestArea, 100},
              [&got](const RpcResponse& r) { got.push_back(r.status); });
  client.call(MessageBuffer{}, [&got](const RpcResponse& r) { got.push_back(r.status); });
  pair.kernel().run_until(Time::ms(5));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], RpcStatus::no_handler);
  EXPECT_EQ(got[1], RpcStatus::no_handler);
  EXPECT_EQ(client.stats().error_responses, 2u);
  EXPECT_EQ(server.stats().requests_served, 2u);
  EXPECT_NE(to_string(RpcStatus::no_handler).find("serves no requests"), std::string::npos);
}

TEST(Rpc, ResponseLargerThanAMessageIsReportedNotSent) {
  TransportPair pair(lossless());
  RpcChannel client(*pair.side(0).connection);
  RpcChannel server(*pair.side(1).connection);
  TransportPair::Side& b = pair.side(1);
  const uint64_t too_big = server.max_body_bytes() + 1;
  server.serve([&b, too_big](const RpcRequest&) {
    return MessageBuffer{b.app_region, kResponseArea, too_big};
  });
  RpcResponse got;
  int calls = 0;
  client.call(MessageBuffer{}, [&](const RpcResponse& r) {
    got = r;
    ++calls;
  });
  pair.kernel().run_until(Time::ms(5));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(got.status, RpcStatus::response_too_large);
  EXPECT_EQ(got.body.length, 0u);
}

// Deliveries that are not RPC messages (a plain Connection::send to the channel's connection)
// are counted and dropped; nothing is answered twice because of them.
TEST(Rpc, ForeignMessagesAreCountedAndDropped) {
  TransportPair pair(lossless());
  RpcChannel server(*pair.side(1).connection);
  server.serve([](const RpcRequest&) { return MessageBuffer{}; });
  pair.send(0, 8);     // shorter than a header
  pair.send(0, 4096);  // pattern bytes where the header should be
  pair.kernel().run_until(Time::ms(5));
  EXPECT_EQ(server.stats().malformed, 2u);
  EXPECT_EQ(server.stats().requests_served, 0u);
}

// The connection gives up (RC, no reconnect, every packet from the client lost): each
// outstanding and queued request is answered once with `failed`.
TEST(Rpc, RequestsOfADeadConnectionFailOnce) {
  TransportPairConfig c = lossless();
  c.transport.reliability = Reliability::hardware_rc;
  c.transport.reconnect = false;
  c.transport.rc_timeout = 2;
  TransportPair pair(c);
  RpcChannel client(*pair.side(0).connection, RpcConfig{.depth = 2});
  RpcChannel server(*pair.side(1).connection);
  server.serve([](const RpcRequest&) { return MessageBuffer{}; });
  pair.wire().set_drop_filter(0, [](const world::Packet&) { return true; });
  std::map<uint64_t, int> failed;
  for (int i = 0; i < 5; ++i) {
    client.call(MessageBuffer{}, [&failed](const RpcResponse& r) {
      if (r.status == RpcStatus::failed) ++failed[r.id];
    });
  }
  pair.kernel().run_until(Time::ms(200));
  ASSERT_EQ(failed.size(), 5u);
  for (const auto& [id, times] : failed) EXPECT_EQ(times, 1) << id;
  EXPECT_EQ(client.stats().requests_failed, 5u);
  EXPECT_GE(pair.side(0).connection->sender_stats().messages_failed, 1u);  // the transport gave up
  EXPECT_EQ(server.stats().requests_served, 0u);
  EXPECT_TRUE(client.idle());
}

}  // namespace
}  // namespace bifrost::transport
