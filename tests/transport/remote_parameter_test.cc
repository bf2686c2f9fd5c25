// Remote parameters: one side sets a value on its peer's side of the connection by control
// messages on the UD QP. The peer validates it like its own configuration and applies it (the
// ACK coalescing and chunking change as asked) or refuses it; lost requests and acks are
// repeated, a repeated request is answered without being applied again, and an unanswered
// request times out.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/transport/remote_parameter.h"
#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

TransportPairConfig uc_config() {
  return testing::control_test_config(Reliability::software_uc);
}

// A connected pair whose side 0 sets parameters of side 1, with a tap on the control messages:
// it records what each side sends and drops the first few of side 0's sets and side 1's acks.
struct Bench {
  explicit Bench(const TransportPairConfig& config) : pair(config) {
    for (int side = 0; side < 2; ++side) {
      pair.wire().set_drop_filter(side,
                                  [this, side](const world::Packet& p) { return tap(side, p); });
    }
  }

  bool tap(int side, const world::Packet& p) {
    if (p.roce.bth.opcode != wire::Opcode::kUdSendOnly) return false;
    const auto m = decode_control_message(p.payload.bytes);
    if (!m) return false;  // a software ACK
    sent[side].push_back(m.value);
    const ControlKind droppable =
        side == 0 ? ControlKind::parameter_set : ControlKind::parameter_ack;
    int& to_drop = side == 0 ? sets_to_drop : acks_to_drop;
    if (m.value.kind != droppable || to_drop == 0) return false;
    --to_drop;
    return true;
  }

  void request(RemoteParameter parameter, uint64_t value) {
    pair.side(0).connection->set_remote_parameter(parameter, value, [this](ParameterStatus s) {
      statuses.push_back(s);
      times.push_back(pair.kernel().now());
    });
  }

  // Runs until `count` requests completed or `limit` passed.
  void run_until_answered(size_t count, Time limit = Time::ms(5)) {
    const Time end = pair.kernel().now() + limit;
    while (statuses.size() < count && pair.kernel().now() < end) {
      pair.kernel().run_until(pair.kernel().now() + Time::us(10));
    }
  }

  // Sends one message of `length` bytes from side `from` outside the ledger; returns how long
  // it took from posting to completion.
  Time send_one(int from, uint64_t length) {
    TransportPair::Side& s = pair.side(from);
    std::optional<Time> took;
    const uint64_t addr = TransportPair::kAppBase + (uint64_t{1} << 34);
    s.connection->send(
        MessageBuffer{s.app_region, addr, length},
        [&took](const SendCompletion& done) { took = done.completed - done.posted; });
    const Time end = pair.kernel().now() + Time::ms(10);
    while (!took && pair.kernel().now() < end) {
      pair.kernel().run_until(pair.kernel().now() + Time::us(1));
    }
    return took.value_or(Time::max());
  }

  const ConnectionStats& stats(int side) { return pair.side(side).connection->stats(); }
  const TransportConfig& peer_config() { return pair.side(1).connection->config(); }

  TransportPair pair;
  std::vector<ControlMessage> sent[2];
  int sets_to_drop = 0;
  int acks_to_drop = 0;
  // What side 0's callbacks reported, in completion order.
  std::vector<ParameterStatus> statuses;
  std::vector<Time> times;
};

TEST(RemoteParameterConfig, AppliesValidValuesAndRefusesWhatValidateRefuses) {
  TransportConfig c;
  EXPECT_FALSE(apply_remote_parameter(c, RemoteParameter::ack_every_wqes, 1));
  EXPECT_EQ(c.ack_every_wqes, 1u);
  EXPECT_FALSE(apply_remote_parameter(c, RemoteParameter::ack_every_bytes, 1000));
  EXPECT_EQ(c.ack_every_bytes, 1000u);
  EXPECT_FALSE(apply_remote_parameter(c, RemoteParameter::ack_timer_ns, 2500));
  EXPECT_EQ(c.ack_timer, Time::ns(2500));
  EXPECT_FALSE(apply_remote_parameter(c, RemoteParameter::max_chunk, 3 * 4096));
  EXPECT_EQ(c.max_chunk, 3u * 4096);

  const TransportConfig before = c;
  const uint64_t above_u32 = uint64_t{1} << 32;
  const struct {
    RemoteParameter parameter;
    uint64_t value;
  } invalid[] = {{RemoteParameter::ack_every_wqes, 0},
                 {RemoteParameter::ack_every_wqes, 33},
                 {RemoteParameter::ack_every_wqes, above_u32 + 1},
                 {RemoteParameter::ack_every_bytes, 0},
                 {RemoteParameter::ack_every_bytes, above_u32},
                 {RemoteParameter::ack_timer_ns, 0},
                 {RemoteParameter::ack_timer_ns, std::numeric_limits<uint64_t>::max()},
                 {RemoteParameter::max_chunk, 0},
                 {RemoteParameter::max_chunk, 4095},
                 {RemoteParameter::max_chunk, 6000},
                 {RemoteParameter::max_chunk, above_u32 + 4096}};
  for (const auto& [parameter, value] : invalid) {
    const auto why = apply_remote_parameter(c, parameter, value);
    ASSERT_TRUE(why) << to_string(parameter) << " " << value;
    EXPECT_FALSE(why->empty());
  }
  EXPECT_EQ(c.ack_every_wqes, before.ack_every_wqes);
  EXPECT_EQ(c.ack_every_bytes, before.ack_every_bytes);
  EXPECT_EQ(c.ack_timer, before.ack_timer);
  EXPECT_EQ(c.max_chunk, before.max_chunk);

  // Requests are repeated on the reconnect schedule, so it must be usable with reconnect off.
  TransportConfig off;
  off.reconnect = false;
  off.reconnect_attempts = 0;
  EXPECT_THROW(off.validate(), Error);
}

TEST(RemoteParameter, AckEveryWqesOfOneMakesThePeerAcknowledgeEveryWqe) {
  TransportPairConfig c = uc_config();
  c.transport.hint_when_idle = false;  // only the coalescing thresholds and the timer trigger
  Bench bench(c);
  TransportPair& pair = bench.pair;
  const ReceiverStats& b = pair.side(1).connection->receiver_stats();
  for (int i = 0; i < 64; ++i) pair.send(0, 2000);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  const uint64_t wqes_before = b.wqes_received;
  const uint64_t acks_before = b.acks_sent;
  EXPECT_LT(acks_before * 4, wqes_before);  // coalesced

  bench.request(RemoteParameter::ack_every_wqes, 1);
  bench.run_until_answered(1);
  ASSERT_EQ(bench.statuses, std::vector{ParameterStatus::applied});
  EXPECT_EQ(bench.peer_config().ack_every_wqes, 1u);

  for (int i = 0; i < 64; ++i) pair.send(0, 2000);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_EQ(b.acks_sent - acks_before, b.wqes_received - wqes_before);
  EXPECT_GE(b.wqes_received - wqes_before, 64u);
}

// A lone message without the hint bit waits for the peer's ACK timer, unless a byte threshold
// below its size triggers the ACK at once.
TEST(RemoteParameter, AckTimerAndAckEveryBytesSetWhenALoneMessageIsAcknowledged) {
  TransportPairConfig c = uc_config();
  c.transport.hint_when_idle = false;
  Bench bench(c);
  EXPECT_GE(bench.send_one(0, 2000), Time::us(120));

  bench.request(RemoteParameter::ack_timer_ns, 30'000);
  bench.run_until_answered(1);
  ASSERT_EQ(bench.statuses, std::vector{ParameterStatus::applied});
  const Time with_short_timer = bench.send_one(0, 2000);
  EXPECT_GE(with_short_timer, Time::us(30));
  EXPECT_LT(with_short_timer, Time::us(60));

  bench.request(RemoteParameter::ack_every_bytes, 1000);
  bench.run_until_answered(2);
  ASSERT_EQ(bench.statuses, std::vector(2, ParameterStatus::applied));
  EXPECT_LT(bench.send_one(0, 2000), Time::us(20));
  EXPECT_EQ(bench.pair.side(1).connection->receiver_stats().ack_triggers[AckTrigger::bytes], 1u);
}

TEST(RemoteParameter, MaxChunkChangesThePeersChunks) {
  Bench bench(uc_config());
  TransportPair& pair = bench.pair;
  const SenderStats& b = pair.side(1).connection->sender_stats();
  pair.send(1, 1 << 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  const uint64_t chunks_before = b.chunks;
  EXPECT_LE(chunks_before, 64u);  // 64 KiB chunks, or smaller while the window opens

  bench.request(RemoteParameter::max_chunk, 4096);
  bench.run_until_answered(1);
  ASSERT_EQ(bench.statuses, std::vector{ParameterStatus::applied});
  pair.send(1, 1 << 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_EQ(b.chunks - chunks_before, 256u);  // one unit each
}

TEST(RemoteParameter, AnInvalidValueIsRefusedAndThePeerKeepsItsOwn) {
  Bench bench(uc_config());
  bench.request(RemoteParameter::ack_every_wqes, 0);
  bench.request(RemoteParameter::ack_every_bytes, uint64_t{1} << 32);
  bench.request(RemoteParameter::max_chunk, 5000);
  bench.run_until_answered(3);
  EXPECT_EQ(bench.statuses, std::vector(3, ParameterStatus::refused));
  EXPECT_EQ(bench.peer_config().ack_every_wqes, 32u);
  EXPECT_EQ(bench.peer_config().ack_every_bytes, 32u * 1024);
  EXPECT_EQ(bench.peer_config().max_chunk, 64u * 1024);
  EXPECT_EQ(bench.stats(1).peer_parameters_refused, 3u);
  EXPECT_EQ(bench.stats(1).peer_parameters_applied, 0u);
  EXPECT_EQ(bench.stats(0).parameters_refused, 3u);
  // The connection still works with the old values.
  for (int i = 0; i < 10; ++i) bench.pair.send(0, 100000);
  ASSERT_TRUE(bench.pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(bench.pair.all_delivered_once());
}

// Requests for one parameter go one at a time in call order (the last value wins); a request
// for another parameter goes beside them.
TEST(RemoteParameter, RequestsForOneParameterGoInCallOrder) {
  Bench bench(uc_config());
  bench.request(RemoteParameter::ack_every_wqes, 1);
  bench.request(RemoteParameter::ack_every_wqes, 4);
  bench.request(RemoteParameter::max_chunk, 8192);
  bench.request(RemoteParameter::ack_every_wqes, 7);
  bench.run_until_answered(4);
  EXPECT_EQ(bench.statuses, std::vector(4, ParameterStatus::applied));
  EXPECT_EQ(bench.peer_config().ack_every_wqes, 7u);
  EXPECT_EQ(bench.peer_config().max_chunk, 8192u);
  // The first two sets on the wire: ack_every_wqes 1 and max_chunk, not ack_every_wqes 4.
  const std::vector<ControlMessage>& sets = bench.sent[0];
  ASSERT_EQ(sets.size(), 4u);
  EXPECT_EQ(sets[0].value, 1u);
  EXPECT_EQ(sets[1].parameter, RemoteParameter::max_chunk);
  EXPECT_EQ(sets[2].value, 4u);
  EXPECT_EQ(sets[3].value, 7u);
  EXPECT_EQ(bench.stats(0).parameter_requests_sent, 4u);
}

class LossBothModes : public ::testing::TestWithParam<Reliability> {};

// The first two sets and the first two acks are lost: the request goes five times, the peer
// applies it once and answers the two repeats that reach it again, and `done` runs once.
TEST_P(LossBothModes, LostSetsAndAcksAreRepeatedAndCompleteOnce) {
  Bench bench(testing::control_test_config(GetParam()));
  bench.sets_to_drop = 2;
  bench.acks_to_drop = 2;
  const Time start = bench.pair.kernel().now();
  bench.request(RemoteParameter::ack_every_wqes, 4);
  bench.pair.kernel().run_until(start + Time::ms(10));
  EXPECT_EQ(bench.statuses, std::vector{ParameterStatus::applied});
  ASSERT_EQ(bench.times.size(), 1u);
  EXPECT_GE(bench.times[0] - start, Time::us(800));  // four intervals of repeats
  EXPECT_EQ(bench.stats(0).parameter_requests_sent, 5u);
  EXPECT_EQ(bench.stats(0).parameters_applied, 1u);
  EXPECT_EQ(bench.stats(1).peer_parameters_applied, 1u);
  EXPECT_EQ(bench.stats(1).parameter_acks_sent, 3u);
  EXPECT_EQ(bench.stats(1).parameter_requests_repeated, 2u);
  EXPECT_EQ(bench.peer_config().ack_every_wqes, 4u);
}

INSTANTIATE_TEST_SUITE_P(Modes, LossBothModes,
                         ::testing::Values(Reliability::hardware_rc, Reliability::software_uc),
                         testing::mode_name);

// Repeats sent faster than the round trip all reach the peer: each is answered again, and the
// extra acks are stale at the requester.
TEST(RemoteParameter, RepeatsFasterThanTheRoundTripAreAnsweredNotReapplied) {
  TransportPairConfig c = uc_config();
  c.wire.delay = Time::us(10);
  c.transport.reconnect_interval = Time::us(6);
  Bench bench(c);
  bench.request(RemoteParameter::max_chunk, 8192);
  bench.pair.kernel().run_until(bench.pair.kernel().now() + Time::ms(1));
  EXPECT_EQ(bench.statuses, std::vector{ParameterStatus::applied});
  const ConnectionStats& a = bench.stats(0);
  const ConnectionStats& b = bench.stats(1);
  EXPECT_GE(a.parameter_requests_sent, 3u);
  EXPECT_EQ(b.parameter_acks_sent, a.parameter_requests_sent);
  EXPECT_EQ(b.peer_parameters_applied, 1u);
  EXPECT_EQ(b.parameter_requests_repeated, a.parameter_requests_sent - 1);
  EXPECT_EQ(a.stale_parameter_acks, a.parameter_requests_sent - 1);
}

// A late copy of a request the peer already answered is not applied again: a copy of the newest
// is answered again, a copy of an older one (since superseded) is ignored.
TEST(RemoteParameter, LateCopiesOfAnsweredRequestsAreNotApplied) {
  Bench bench(uc_config());
  bench.request(RemoteParameter::ack_every_wqes, 1);
  bench.request(RemoteParameter::ack_every_wqes, 8);
  bench.run_until_answered(2);
  ASSERT_EQ(bench.statuses, std::vector(2, ParameterStatus::applied));
  ASSERT_EQ(bench.sent[0].size(), 2u);
  const ControlMessage older = bench.sent[0][0];
  const ControlMessage newest = bench.sent[0][1];
  Endpoint& endpoint = *bench.pair.sim().side(0).endpoint;
  const ConnectionOffer& peer = bench.pair.side(0).connection->peer();
  const ConnectionStats& b = bench.stats(1);

  endpoint.post_control(peer, older);
  bench.pair.kernel().run_until(bench.pair.kernel().now() + Time::us(50));
  EXPECT_EQ(bench.peer_config().ack_every_wqes, 8u);
  EXPECT_EQ(b.stale_parameter_requests, 1u);
  EXPECT_EQ(b.parameter_acks_sent, 2u);

  endpoint.post_control(peer, newest);
  bench.pair.kernel().run_until(bench.pair.kernel().now() + Time::us(50));
  EXPECT_EQ(b.peer_parameters_applied, 2u);
  EXPECT_EQ(b.parameter_requests_repeated, 1u);
  EXPECT_EQ(b.parameter_acks_sent, 3u);
  EXPECT_EQ(bench.stats(0).stale_parameter_acks, 1u);  // its request had finished
  EXPECT_EQ(bench.statuses.size(), 2u);
}

// The peer is gone: each request times out after reconnect_attempts sends, and a request queued
// behind one for the same parameter is sent (and times out) after it.
TEST(RemoteParameter, UnansweredRequestsTimeOutAfterTheirAttempts) {
  TransportPairConfig c = uc_config();
  c.transport.reconnect_attempts = 3;
  Bench bench(c);
  bench.sets_to_drop = 1000;
  const Time start = bench.pair.kernel().now();
  bench.request(RemoteParameter::ack_every_wqes, 1);
  bench.request(RemoteParameter::max_chunk, 8192);
  bench.request(RemoteParameter::ack_every_wqes, 2);
  bench.pair.kernel().run_until(start + Time::ms(5));
  EXPECT_EQ(bench.statuses, std::vector(3, ParameterStatus::timed_out));
  ASSERT_EQ(bench.times.size(), 3u);
  // Three sends 200 us apart, then one more interval; the queued request only then starts.
  EXPECT_EQ(bench.times[0] - start, Time::us(600));
  EXPECT_EQ(bench.times[1] - start, Time::us(600));
  EXPECT_EQ(bench.times[2] - start, Time::us(1200));
  EXPECT_EQ(bench.stats(0).parameter_requests_sent, 9u);
  EXPECT_EQ(bench.stats(0).parameters_timed_out, 3u);
  EXPECT_EQ(bench.stats(1).peer_parameters_applied, 0u);
  EXPECT_EQ(bench.peer_config().ack_every_wqes, 32u);
}

TEST(RemoteParameter, ThrowsBeforeConnectAndForAnUnknownParameter) {
  Bench bench(uc_config());
  Connection& lone = bench.pair.sim().side(0).endpoint->create_connection(TransportConfig{});
  EXPECT_THROW(lone.set_remote_parameter(RemoteParameter::max_chunk, 8192), Error);
  EXPECT_THROW(bench.request(RemoteParameter{5}, 1), Error);
  EXPECT_EQ(bench.stats(0).parameter_requests_sent, 0u);
}

}  // namespace
}  // namespace bifrost::transport
