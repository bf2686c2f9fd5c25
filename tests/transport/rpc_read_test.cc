// RpcChannel's READ path (RpcConfig::read_threshold): a request above the threshold goes as a
// 16-byte descriptor and the server pulls its bytes with a one-sided READ. Every such request
// arrives byte-identical and is answered once, over RC (the NIC's READ) and UC (Bifröst's
// read request), under random loss, in token and in byte memory; requests below the threshold
// stay messages; a server short of landing space waits; a descriptor the server cannot read
// is answered request_unreadable, a malformed one is dropped.
#include <gtest/gtest.h>

#include <array>
#include <tuple>

#include "bifrost/transport/rpc.h"
#include "bifrost/transport/wire/rpc_header.h"
#include "rpc_bench.h"

namespace bifrost::transport {
namespace {

using namespace testing_rpc;
using testing::TransportPair;
using testing::TransportPairConfig;

constexpr uint64_t kThreshold =
    32 * 1024;  // ARDMA's SEND limit (experiments/bifrost-loss-throughput)

using ModeAndMemory = std::tuple<Reliability, MemoryKind>;

class RpcReadUnderLoss : public ::testing::TestWithParam<ModeAndMemory> {};

TEST_P(RpcReadUnderLoss, LargeRequestsArePulledByReadIntactAndAnsweredOnce) {
  const auto [reliability, memory] = GetParam();
  for (const uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    TransportPairConfig c = lossless();
    c.transport.reliability = reliability;
    c.endpoint.memory = memory;
    c.wire.loss = 0.01;
    c.wire.duplicate = 0.005;
    c.wire.reorder = 0.01;
    c.wire.seed = seed;
    RpcBench bench(c, RpcConfig{.depth = 8, .read_threshold = kThreshold});
    RandomStream r(seed, "rpc-read-sizes");
    constexpr int kRequests = 120;
    uint64_t large = 0;
    for (int i = 0; i < kRequests; ++i) {
      const uint64_t length = r.bernoulli(0.4) ? r.uniform_int(kThreshold + 1, 700 * 1024)
                                               : r.uniform_int(8, kThreshold);
      large += length > kThreshold ? 1 : 0;
      bench.call(length);
    }
    ASSERT_TRUE(bench.run(Time::s(10)));
    EXPECT_TRUE(bench.each_answered_once_correctly());
    const RpcStats& client = bench.client().stats();
    const RpcStats& server = bench.server().stats();
    EXPECT_GT(large, 0u);
    EXPECT_EQ(client.read_requests, large);
    EXPECT_EQ(server.requests_read, large);
    EXPECT_EQ(server.requests_served, uint64_t{kRequests});
    EXPECT_EQ(server.reads_refused + client.malformed + server.malformed, 0u);
    EXPECT_LE(bench.max_in_service(), 8u);
    // The server's connection did the READs; the loss was real and repaired.
    EXPECT_EQ(bench.pair().side(1).connection->sender_stats().reads_done, large);
    EXPECT_GT(bench.pair().wire().counters(0).lost + bench.pair().wire().counters(1).lost, 0u);
    bench.pair().kernel().run_until(bench.pair().kernel().now() + Time::ms(20));
    EXPECT_TRUE(bench.client().idle());
    EXPECT_TRUE(bench.server().idle());
  }
}

INSTANTIATE_TEST_SUITE_P(
    ModesAndWorlds, RpcReadUnderLoss,
    ::testing::Combine(::testing::Values(Reliability::hardware_rc, Reliability::software_uc),
                       ::testing::Values(MemoryKind::tokens, MemoryKind::bytes)),
    [](const ::testing::TestParamInfo<ModeAndMemory>& param) {
      return std::string(std::get<0>(param.param) == Reliability::hardware_rc ? "Rc" : "Uc") +
             (std::get<1>(param.param) == MemoryKind::tokens ? "Tokens" : "Bytes");
    });

TEST(RpcRead, RequestsUpToTheThresholdStayMessages) {
  RpcBench bench(lossless(), RpcConfig{.depth = 8, .read_threshold = kThreshold});
  bench.call(kThreshold);
  bench.call(100);
  bench.call(kThreshold + 1);
  ASSERT_TRUE(bench.run(Time::ms(50)));
  EXPECT_TRUE(bench.each_answered_once_correctly());
  EXPECT_EQ(bench.client().stats().read_requests, 1u);
  EXPECT_EQ(bench.server().stats().requests_read, 1u);
}

// The server lands one 600 KB request at a time: the others wait for its landing space.
TEST(RpcRead, ServerShortOfLandingSpaceWaits) {
  RpcBench bench(lossless(),
                 RpcConfig{.depth = 8, .staging_bytes = 8 << 20, .read_threshold = kThreshold},
                 RpcConfig{.staging_bytes = 1 << 20});
  for (int i = 0; i < 8; ++i) bench.call(600 * 1024);
  ASSERT_TRUE(bench.run(Time::ms(200)));
  EXPECT_TRUE(bench.each_answered_once_correctly());
  EXPECT_GT(bench.server().stats().read_waits, 0u);
  EXPECT_EQ(bench.server().stats().requests_read, 8u);
}

// A read request written by hand on the client's connection: its response goes to the client's
// channel, which knows no such request.
void send_read_request(TransportPair::Side& a, uint64_t id, const RpcReadDescriptor& d,
                       uint32_t body_bytes = kRpcReadDescriptorBytes) {
  world::Payload p{.length = static_cast<uint32_t>(kRpcHeaderBytes) + body_bytes,
                   .bytes = std::vector<std::byte>(kRpcHeaderBytes + body_bytes)};
  ASSERT_TRUE(encode_rpc_header(RpcHeader{.kind = RpcKind::read_request, .id = id}, p.bytes).ok());
  if (body_bytes >= kRpcReadDescriptorBytes) {
    ASSERT_TRUE(encode_rpc_read_descriptor(d, std::span(p.bytes).subspan(kRpcHeaderBytes)).ok());
  }
  const uint64_t at = kRequestArea + (uint64_t{64} << 20) + id * 4096;
  a.app->write(at, p);
  a.connection->send(MessageBuffer{a.app_region, at, p.length});
}

TEST(RpcRead, UnreadableAndMalformedDescriptorsAreRefusedOrDropped) {
  RpcBench bench(lossless(), RpcConfig{.read_threshold = kThreshold},
                 RpcConfig{.staging_bytes = 256 * 1024});
  TransportPair::Side& a = bench.pair().side(0);
  // An rkey the client never registered; a length the server cannot land.
  send_read_request(a, 1001,
                    RpcReadDescriptor{.address = kRequestArea, .rkey = 0xdead, .length = 40000});
  send_read_request(
      a, 1002,
      RpcReadDescriptor{.address = kRequestArea, .rkey = a.app_region->rkey, .length = 300 * 1024});
  // A descriptor of length 0, and one cut short.
  send_read_request(a, 1003, RpcReadDescriptor{.address = kRequestArea, .rkey = 1, .length = 0});
  send_read_request(a, 1004, RpcReadDescriptor{}, 8);
  bench.pair().kernel().run_until(Time::ms(50));
  const RpcStats& server = bench.server().stats();
  EXPECT_EQ(server.reads_refused, 2u);
  EXPECT_EQ(server.requests_served, 2u);  // both answered request_unreadable
  EXPECT_EQ(server.requests_read, 0u);
  EXPECT_EQ(server.malformed, 2u);
  EXPECT_EQ(bench.client().stats().unknown_responses, 2u);
  EXPECT_TRUE(bench.server().idle());
  EXPECT_NE(to_string(RpcStatus::request_unreadable).find("READ"), std::string::npos);
}

TEST(RpcHeader, DecodesWhatItEncodesAndRefusesTheRest) {
  std::array<std::byte, kRpcHeaderBytes> b{};
  ASSERT_TRUE(
      encode_rpc_header(
          RpcHeader{.kind = RpcKind::response, .status = RpcStatus::request_unreadable, .id = 77},
          b)
          .ok());
  const auto h = decode_rpc_header(b);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.value.kind, RpcKind::response);
  EXPECT_EQ(h.value.status, RpcStatus::request_unreadable);
  EXPECT_EQ(h.value.id, 77u);
  b[3] = std::byte{static_cast<uint8_t>(RpcStatus::failed)};  // local only: never on the wire
  EXPECT_FALSE(decode_rpc_header(b).ok());
  ASSERT_TRUE(encode_rpc_header(RpcHeader{.kind = RpcKind::read_request, .id = 5}, b).ok());
  EXPECT_TRUE(decode_rpc_header(b).ok());
  b[3] = std::byte{1};  // a status in a request
  EXPECT_FALSE(decode_rpc_header(b).ok());
  EXPECT_FALSE(decode_rpc_header(std::span(b).first(15)).ok());
  std::array<std::byte, kRpcReadDescriptorBytes> d{};
  const RpcReadDescriptor in{.address = 0x1122334455667788, .rkey = 9, .length = 1 << 20};
  ASSERT_TRUE(encode_rpc_read_descriptor(in, d).ok());
  const auto out = decode_rpc_read_descriptor(d);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.value.address, in.address);
  EXPECT_EQ(out.value.rkey, in.rkey);
  EXPECT_EQ(out.value.length, in.length);
}

}  // namespace
}  // namespace bifrost::transport
