// Virtuoso's blocks alone: eq. (1) in whole blocks (sums to the message, data_i / cap_i within
// block / min cap of each other), the chunk search's phases, the receive-advert wire format.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/transport/virtuoso/chunk_policy.h"
#include "bifrost/transport/virtuoso/load_balancer.h"
#include "bifrost/transport/virtuoso/virtuoso_config.h"
#include "transport/virtuoso/advert.h"

namespace bifrost::transport::virtuoso {
namespace {

// The largest |data_i / cap_i - data_j / cap_j|, in seconds, less the rounding error of
// computing it in double (a few ulps of the larger time: the bound is often met exactly).
double worst_imbalance(const std::vector<uint64_t>& data, const std::vector<double>& cap) {
  double lo = 1e300;
  double hi = -1e300;
  for (size_t i = 0; i < data.size(); ++i) {
    const double t = static_cast<double>(data[i]) / cap[i];
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  return hi - lo - 8 * std::numeric_limits<double>::epsilon() * hi;
}

TEST(VirtuosoSplit, SumsToTheMessageAndBalancesWithinABlock) {
  RandomStream rng(23, "split");
  const ProportionalSplit split;
  for (int trial = 0; trial < 5000; ++trial) {
    const auto paths = static_cast<size_t>(rng.uniform_int(1, 12));
    std::vector<double> cap;
    for (size_t i = 0; i < paths; ++i) cap.push_back(rng.uniform_int(1, 400) * 1e8);
    const uint64_t block = uint64_t{1} << rng.uniform_int(0, 16);
    const uint64_t total = rng.uniform_int(1, 1) == 1 && trial % 3 == 0
                               ? static_cast<uint64_t>(rng.uniform_int(1, 100'000))
                               : static_cast<uint64_t>(rng.uniform_int(1, 2'000'000'000));
    const auto data = split.split(total, cap, block);
    ASSERT_EQ(data.size(), paths);
    ASSERT_EQ(std::accumulate(data.begin(), data.end(), uint64_t{0}), total);
    const double min_cap = *std::min_element(cap.begin(), cap.end());
    ASSERT_LE(worst_imbalance(data, cap), static_cast<double>(block) / min_cap)
        << "trial " << trial << " total " << total << " block " << block;
    // Whole blocks everywhere but at most one path's last piece.
    int partial = 0;
    for (uint64_t d : data) partial += d % block != 0 ? 1 : 0;
    ASSERT_LE(partial, 1);
  }
}

TEST(VirtuosoSplit, EqualPathsSplitEvenlyAndUnequalOnesInProportion) {
  const ProportionalSplit split;
  EXPECT_EQ(split.split(4 * 4096, std::vector<double>{1, 1, 1, 1}, 4096),
            (std::vector<uint64_t>{4096, 4096, 4096, 4096}));
  const auto data = split.split(8'000'000, std::vector<double>{1e9, 1e9, 2e9, 4e9}, 1000);
  EXPECT_EQ(data, (std::vector<uint64_t>{1'000'000, 1'000'000, 2'000'000, 4'000'000}));
  EXPECT_THROW(split.split(10, std::vector<double>{1, 0}, 1), Error);
  EXPECT_THROW(split.split(10, std::vector<double>{}, 1), Error);
}

ChunkSearchConfig search_config() {
  ChunkSearchConfig c;
  c.enabled = true;
  c.initial = 64 * 1024;
  c.linear_step = 16 * 1024;
  c.successes_per_step = 2;
  return c;
}

TEST(VirtuosoChunkSearch, DoublesThenBacksOffThenStepsLinearlyThenSettles) {
  ChunkSearch s(search_config(), 2, 4096, 64 << 20);
  EXPECT_EQ(s.chunk(), 64u * 1024);
  EXPECT_EQ(s.in_flight_per_path(), 1u);
  s.on_success(64 * 1024);
  EXPECT_EQ(s.chunk(), 64u * 1024);  // one success is not a step
  s.on_success(10);                  // a short WR does not test the size
  s.on_success(64 * 1024);
  EXPECT_EQ(s.chunk(), 128u * 1024);
  s.on_success(128 * 1024);
  s.on_success(128 * 1024);
  EXPECT_EQ(s.chunk(), 256u * 1024);
  s.on_retry_exceeded(256 * 1024);
  EXPECT_EQ(s.chunk(), 128u * 1024);
  EXPECT_EQ(s.phase(), ChunkSearch::Phase::linear);
  s.on_retry_exceeded(256 * 1024);  // the other path's WR of the same iteration: no news
  EXPECT_EQ(s.chunk(), 128u * 1024);
  EXPECT_EQ(s.phase(), ChunkSearch::Phase::linear);
  s.on_success(128 * 1024);
  s.on_success(128 * 1024);
  EXPECT_EQ(s.chunk(), 144u * 1024);
  s.on_success(144 * 1024);
  s.on_success(144 * 1024);
  EXPECT_EQ(s.chunk(), 160u * 1024);
  s.on_retry_exceeded(160 * 1024);
  EXPECT_EQ(s.chunk(), 144u * 1024);
  EXPECT_EQ(s.phase(), ChunkSearch::Phase::settled);
  s.on_success(144 * 1024);
  s.on_success(144 * 1024);
  s.on_retry_exceeded(144 * 1024);
  EXPECT_EQ(s.chunk(), 144u * 1024);  // settled: it stays
}

TEST(VirtuosoChunkSearch, SettledBacksOffOneStepPerFailureWhenAsked) {
  ChunkSearchConfig c = search_config();
  c.back_off_when_settled = true;
  ChunkSearch s(c, 1, 4096, 1 << 20);
  s.on_success(64 * 1024);
  s.on_success(64 * 1024);
  s.on_retry_exceeded(128 * 1024);  // back to 64 KiB, linear
  s.on_retry_exceeded(64 * 1024);   // settled at the previous size, 64 KiB
  ASSERT_EQ(s.phase(), ChunkSearch::Phase::settled);
  EXPECT_EQ(s.chunk(), 64u * 1024);
  s.on_retry_exceeded(64 * 1024);
  EXPECT_EQ(s.chunk(), 48u * 1024);
  s.on_retry_exceeded(64 * 1024);  // an older, larger WR: no news
  EXPECT_EQ(s.chunk(), 48u * 1024);
  for (int i = 0; i < 10; ++i) s.on_retry_exceeded(s.chunk());
  EXPECT_EQ(s.chunk(), 4096u);  // never below the block
  EXPECT_EQ(s.backoffs(), 4u);  // 48 -> 32 -> 16 -> 4 KiB
  EXPECT_EQ(s.settled_chunk(), 64u * 1024);
  EXPECT_EQ(s.phase(), ChunkSearch::Phase::settled);
}

TEST(VirtuosoChunkSearch, AFailingFirstSizeHalvesDownToTheBlock) {
  ChunkSearch s(search_config(), 1, 4096, 1 << 20);
  for (int i = 0; i < 10; ++i) s.on_retry_exceeded(s.chunk());
  EXPECT_EQ(s.chunk(), 4096u);
  EXPECT_EQ(s.phase(), ChunkSearch::Phase::binary);
}

TEST(VirtuosoChunkSearch, NeverAboveTheLargestWr) {
  ChunkSearch s(search_config(), 1, 4096, 200 * 1024);
  for (int i = 0; i < 20; ++i) s.on_success(s.chunk());
  EXPECT_EQ(s.chunk(), 200u * 1024);
}

// Pacing the paths needs their rates: without probing there are none.
TEST(VirtuosoConfigCheck, PacedPathsNeedProbing) {
  VirtuosoConfig c;
  c.pace_paths = true;
  c.probe = true;
  EXPECT_NO_THROW(c.validate());
  c.probe = false;
  try {
    c.validate();
    FAIL() << "accepted pace_paths without probe";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pace_paths needs probe"), std::string::npos) << e.what();
  }
}

TEST(VirtuosoAdvert, RoundTripsAndRejectsOtherMessages) {
  const Advert a{.connection = 7,
                 .sequence = 1ull << 40,
                 .addr = 0x7000'0000'1000,
                 .length = 123'456,
                 .rkey = 99};
  const auto bytes = encode_advert(a);
  EXPECT_EQ(decode_advert(bytes), a);
  const Advert ack{.connection = 7, .ack = true, .sequence = 5};
  EXPECT_EQ(decode_advert(encode_advert(ack)), ack);
  auto bad = bytes;
  bad[4] = std::byte{0};  // a control message's marker
  EXPECT_FALSE(decode_advert(bad));
  bad = bytes;
  bad[5] = std::byte{3};
  EXPECT_FALSE(decode_advert(bad));
  EXPECT_FALSE(decode_advert(std::span(bytes).first(20)));
  auto ack_bytes = encode_advert(ack);
  ack_bytes[20] = std::byte{1};  // an ack carries no buffer
  EXPECT_FALSE(decode_advert(ack_bytes));
}

}  // namespace
}  // namespace bifrost::transport::virtuoso
