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
#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

constexpr uint64_t kRequestArea = TransportPair::kAppBase;
constexpr uint64_t kResponseArea = TransportPair::kAppBase + (uint64_t{1} << 30);

// Request k carries k in its first 8 bytes and pattern 1 + k after them; its response is
// response_size(k) bytes of pattern 100000 + k.
uint32_t request_seed(uint64_t k) {
  return static_cast<uint32_t>(1 + k);
}
uint32_t response_seed(uint64_t k) {
  return static_cast<uint32_t>(100000 + k);
}
uint64_t response_size(uint64_t k) {
  return k % 5 == 0 ? 40000 + k * 17 : 8 + k % 300;  // some by WRITE, most by SEND
}

// True if [addr, addr + length) of `memory` holds pattern `seed` from pattern offset `offset`.
bool holds_pattern(const rnic::HostMemory& memory, uint64_t addr, uint64_t length, uint32_t seed,
                   uint64_t offset) {
  rnic::TokenMemory expected(0, offset + length);
  expected.fill(offset, length, seed, offset);
  return rnic::same_content(memory, addr, expected, offset, length);
}

// One client side (0) and one server side (1) of a TransportPair, with a ledger of answers.
class RpcBench {
 public:
  explicit RpcBench(const TransportPairConfig& c, RpcConfig rpc = {})
      : pair_(c), client_(*pair_.side(0).connection, rpc), server_(*pair_.side(1).connection) {
    server_.serve([this](const RpcRequest& r) { return respond(r); });
  }

  // Issues request k of `length` bytes (at least 8).
  uint64_t call(uint64_t length) {
    const uint64_t k = requests_.size();
    TransportPair::Side& a = pair_.side(0);
    a.app->fill(kRequestArea, length, request_seed(k), 0);
    world::Payload tag{.length = 8, .token = 0, .bytes = std::vector<std::byte>(8)};
    std::memcpy(tag.bytes.data(), &k, 8);
    a.app->write(kRequestArea, tag);
    requests_.push_back(Request{.length = length});
    const uint64_t id = client_.call(MessageBuffer{a.app_region, kRequestArea, length},
                                     [this, k](const RpcResponse& r) { on_response(k, r); });
    requests_[k].id = id;
    return id;
  }

  bool run(Time limit) {
    const Time end = pair_.kernel().now() + limit;
    while (!all_answered() && pair_.kernel().now() < end) {
      pair_.kernel().run_until(std::min(end, pair_.kernel().now() + Time::us(100)));
    }
    return all_answered();
  }
  bool all_answered() const { return answered_ == requests_.size(); }

  ::testing::AssertionResult each_answered_once_correctly() const {
    for (size_t k = 0; k < requests_.size(); ++k) {
      const Request& r = requests_[k];
      if (r.answers != 1 || !r.right) {
        return ::testing::AssertionFailure()
               << "request " << k << " (id " << r.id << ", " << r.length << " B) answered "
               << r.answers << " times, right response: " << r.right;
      }
    }
    if (bad_requests_ != 0) {
      return ::testing::AssertionFailure() << bad_requests_ << " requests arrived corrupt";
    }
    return ::testing::AssertionSuccess();
  }

  TransportPair& pair() { return pair_; }
  RpcChannel& client() { return client_; }
  RpcChannel& server() { return server_; }
  // The most requests the server held at once that the client had not been answered for.
  uint64_t max_in_service() const { return max_in_service_; }
  const std::vector<uint64_t>& completion_order() const { return completion_order_; }

 private:
  struct Request {
    uint64_t length = 0;
    uint64_t id = 0;
    uint32_t answers = 0;
    bool right = false;
  };

  MessageBuffer respond(const RpcRequest& r) {
    ++served_;
    max_in_service_ = std::max(max_in_service_, served_ - answered_);
    uint64_t k = UINT64_MAX;
    if (r.body.length >= 8) {
      std::array<std::byte, 8> tag;
      r.body.memory->copy_out(r.body.addr, tag);
      std::memcpy(&k, tag.data(), 8);
    }
    if (k >= requests_.size() || !request_intact(k, r.body)) {
      ++bad_requests_;
      return MessageBuffer{};
    }
    TransportPair::Side& b = pair_.side(1);
    b.app->fill(kResponseArea, response_size(k), response_seed(k), 0);
    return MessageBuffer{b.app_region, kResponseArea, response_size(k)};
  }

  bool request_intact(uint64_t k, const Delivery& body) const {
    const uint64_t length = requests_[k].length;
    return body.length == length &&
           holds_pattern(*body.memory, body.addr + 8, length - 8, request_seed(k), 8);
  }

  void on_response(uint64_t k, const RpcResponse& r) {
    Request& q = requests_[k];
    ++q.answers;
    ++answered_;
    completion_order_.push_back(k);
    if (r.status != RpcStatus::ok || r.id != q.id || r.body.length != response_size(k)) return;
    q.right = holds_pattern(*r.body.memory, r.body.addr, r.body.length, response_seed(k), 0);
  }

  TransportPair pair_;
  RpcChannel client_;
  RpcChannel server_;
  std::vector<Request> requests_;
  uint64_t answered_ = 0;
  uint64_t served_ = 0;
  uint64_t max_in_service_ = 0;
  uint64_t bad_requests_ = 0;
  std::vector<uint64_t> completion_order_;
};

TransportPairConfig lossless() {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  return c;
}

uint64_t random_request_size(RandomStream& r) {
  return r.bernoulli(0.15) ? r.uniform_int(32 * 1024, 600 * 1024) : r.uniform_int(8, 2000);
}

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
