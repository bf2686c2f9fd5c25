#include "bifrost/rnic/receive_pipeline.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bifrost/core/rng.h"
#include "support/error_message.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

// 1625-byte packets at 100 Gb/s arrive every 130 ns, so a 1.3 us stall spans exactly ten.
constexpr uint32_t kPacket = 1625;
constexpr Time kGap = Time::ns(130);
constexpr Time kStall = Time::ns(1300);

ReceivePipelineConfig line_rate(Bytes buffer) {
  return {.service_rate = Rate::Gbps(100), .per_packet = Time::zero(), .buffer = buffer};
}

TEST(ReceivePipeline, ServiceAtArrivalRateNeverDrops) {
  // Even a one-packet buffer suffices: each packet finishes as the next one arrives.
  ReceivePipeline pipeline(line_rate(Bytes(1000)));
  for (int k = 0; k < 10'000; ++k) {
    const Time now = Time::ns(80) * k;
    ASSERT_EQ(pipeline.admit(now, 1000), now + Time::ns(80)) << k;
  }
  EXPECT_EQ(pipeline.admitted(), 10'000u);
  EXPECT_EQ(pipeline.dropped(), 0u);
  EXPECT_EQ(pipeline.max_occupancy(), Bytes(1000));
  EXPECT_EQ(pipeline.stalls(), 0u);
}

TEST(ReceivePipeline, ServiceTimeAddsPerPacketTimeAndStall) {
  ReceivePipeline pipeline(
      {.service_rate = Rate::Gbps(50), .per_packet = Time::ns(10), .buffer = Bytes::KiB(64)});
  // 1000 B at 50 Gb/s = 160 ns, plus 10 ns per packet.
  EXPECT_EQ(pipeline.admit(Time::zero(), 1000), Time::ns(170));
  // Arrives while the first is in service: waits for it, then stalls 1.2 us.
  EXPECT_EQ(pipeline.admit(Time::ns(50), 1000, Time::ns(1200)), Time::ns(170 + 170 + 1200));
  EXPECT_EQ(pipeline.busy_until(), Time::ns(1540));
  EXPECT_EQ(pipeline.occupancy(Time::ns(169)), Bytes(2000));
  EXPECT_EQ(pipeline.occupancy(Time::ns(170)), Bytes(1000));
  EXPECT_EQ(pipeline.occupancy(Time::ns(1540)), Bytes(0));
  // An idle pipeline starts a late packet at once; a negative stall counts as none.
  EXPECT_EQ(pipeline.admit(Time::us(5), 1000, Time::ns(-7)), Time::us(5) + Time::ns(170));
  EXPECT_EQ(pipeline.stalls(), 1u);
  EXPECT_EQ(pipeline.total_stall(), Time::ns(1200));
}

TEST(ReceivePipeline, StallBuildsABacklogOfTheBytesArrivingMeanwhile) {
  ReceivePipeline pipeline(line_rate(Bytes::MiB(1)));
  EXPECT_EQ(pipeline.admit(Time::zero(), kPacket, kStall), kStall + kGap);
  for (int k = 1; k < 100; ++k) {
    const Time now = kGap * k;
    const Bytes queued = pipeline.occupancy(now);
    // The backlog grows by one packet per arrival during the stall, then stays at the bytes
    // that arrived during it, since the service rate only matches the arrival rate.
    EXPECT_EQ(queued, Bytes(kPacket) * static_cast<uint64_t>(std::min(k, 10))) << k;
    EXPECT_EQ(pipeline.admit(now, kPacket), kStall + kGap * (k + 1)) << k;
  }
  EXPECT_EQ(bytes_in(kStall, Rate::Gbps(100)), Bytes(10 * kPacket));
  EXPECT_EQ(pipeline.max_occupancy(), Bytes(11 * kPacket));  // the backlog plus the arrival
  EXPECT_EQ(pipeline.dropped(), 0u);
  EXPECT_EQ(pipeline.stalls(), 1u);
  EXPECT_EQ(pipeline.total_stall(), kStall);
}

TEST(ReceivePipeline, PacketWaitsForItsContextAndThePacketsBehindWaitForIt) {
  ReceivePipeline pipeline(line_rate(Bytes::MiB(1)));
  // Packet 0's context arrives 1.3 us after it: the pipeline idles until then. Packet 1's
  // context is ready, but it is behind packet 0 in the FIFO.
  EXPECT_EQ(pipeline.admit(Time::zero(), kPacket, Time::zero(), kStall), kStall + kGap);
  EXPECT_EQ(pipeline.admit(kGap, kPacket), kStall + kGap * 2);
  // Packet 2's own context was fetched in parallel and is ready before packet 1 finishes:
  // no further wait, unlike a second serial stall.
  EXPECT_EQ(pipeline.admit(kGap * 2, kPacket, Time::zero(), kGap * 2 + kStall), kStall + kGap * 3);
  // Waiting for a context is not a stall of the pipeline.
  EXPECT_EQ(pipeline.stalls(), 0u);
  // A context ready before the packet arrives costs nothing.
  EXPECT_EQ(pipeline.admit(Time::us(10), kPacket, Time::zero(), Time::us(9)), Time::us(10) + kGap);
}

TEST(ReceivePipeline, SmallBufferDropsExactlyTheOverflow) {
  // The stall needs room for 11 packets (10 queued + the arrival). A buffer of b packets
  // admits packets 0..b-1, drops b..10 while packet 0 is still stalled, and from packet 11 on
  // (arriving as packet 0 finishes) admits everything again.
  for (uint64_t b = 1; b <= 12; ++b) {
    SCOPED_TRACE(fmt::format("buffer of {} packets", b));
    ReceivePipeline pipeline(line_rate(Bytes(kPacket) * b));
    std::vector<int> dropped;
    for (int k = 0; k < 60; ++k) {
      if (!pipeline.admit(kGap * k, kPacket, k == 0 ? kStall : Time::zero())) dropped.push_back(k);
    }
    std::vector<int> expected;
    for (int k = static_cast<int>(b); k <= 10; ++k) expected.push_back(k);
    EXPECT_EQ(dropped, expected);
    EXPECT_EQ(pipeline.dropped(), expected.size());
    EXPECT_EQ(pipeline.dropped_bytes(), Bytes(kPacket) * expected.size());
    EXPECT_EQ(pipeline.admitted(), 60u - expected.size());
    EXPECT_EQ(pipeline.max_occupancy(), Bytes(kPacket) * std::min<uint64_t>(b, 11));
  }
}

TEST(ReceivePipeline, PacketLargerThanTheBufferIsDropped) {
  ReceivePipeline pipeline(line_rate(Bytes(1000)));
  EXPECT_EQ(pipeline.admit(Time::zero(), 1001), std::nullopt);
  EXPECT_EQ(pipeline.admit(Time::zero(), 1000), Time::ns(80));
  EXPECT_EQ(pipeline.dropped(), 1u);
  EXPECT_EQ(pipeline.admitted(), 1u);
}

TEST(ReceivePipeline, RejectsImpossibleConfigurations) {
  EXPECT_EQ(testing::error_of([] { ReceivePipeline({.service_rate = Rate::bps(0)}); }),
            "receive pipeline service rate 0 bit/s must be positive: use about line rate");
  EXPECT_EQ(testing::error_of([] { ReceivePipeline({.per_packet = Time::ps(-1)}); }),
            "receive pipeline per-packet time -1 ps is negative: use 0 or more");
  EXPECT_EQ(testing::error_of([] { ReceivePipeline({.buffer = Bytes(0)}); }),
            "receive buffer of 0 bytes holds no packet: use at least one MTU");
}

// Random arrivals, sizes and stalls: the occupancy never exceeds the buffer and always equals a
// brute-force sum over every admitted packet; finish times are FIFO and no earlier than the
// packet's own service time; every packet is admitted or dropped.
TEST(ReceivePipelineProperty, OccupancyNeverExceedsTheBuffer) {
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    RandomStream rng(seed, "receive-pipeline-property");
    const ReceivePipelineConfig config{
        .service_rate = Rate::Gbps(static_cast<int64_t>(rng.uniform_int(10, 200))),
        .per_packet = Time::ps(static_cast<int64_t>(rng.uniform_int(0, 50'000))),
        .buffer = Bytes(rng.uniform_int(1, 200'000))};
    ReceivePipeline pipeline(config);
    struct Done {
      Time finish;
      uint32_t bytes;
    };
    std::vector<Done> all;
    Time now;
    Time last_finish;
    const int offered = 3000;
    for (int k = 0; k < offered; ++k) {
      now += Time::ps(static_cast<int64_t>(rng.uniform_int(0, 400'000)));
      const auto bytes = static_cast<uint32_t>(rng.uniform_int(64, 9000));
      const Time stall = rng.bernoulli(0.05)
                             ? Time::ns(static_cast<int64_t>(rng.uniform_int(1200, 1400)))
                             : Time::zero();
      const std::optional<Time> finish = pipeline.admit(now, bytes, stall);
      if (finish) {
        ASSERT_GE(*finish, last_finish);
        ASSERT_GE(*finish, now + config.per_packet +
                               serialization_time(Bytes(bytes), config.service_rate) + stall);
        last_finish = *finish;
        all.push_back({*finish, bytes});
      }
      // Time only moves forward, so finished packets can leave the reference list for good.
      std::erase_if(all, [&](const Done& d) { return d.finish <= now; });
      uint64_t brute = 0;
      for (const Done& d : all) brute += d.bytes;
      const Bytes occupancy = pipeline.occupancy(now);
      ASSERT_EQ(occupancy, Bytes(brute)) << "packet " << k;
      ASSERT_LE(occupancy, config.buffer) << "packet " << k;
    }
    EXPECT_EQ(pipeline.admitted() + pipeline.dropped(), static_cast<uint64_t>(offered));
    EXPECT_LE(pipeline.max_occupancy(), config.buffer);
  }
}

}  // namespace
}  // namespace bifrost::rnic
