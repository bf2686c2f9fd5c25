#include "bifrost/core/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "bifrost/core/error.h"

namespace bifrost {
namespace {

std::vector<uint64_t> draw(RandomStream& r, int n) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(r.next_u64());
  return out;
}

TEST(Rng, HashNameIsFnv1a) {
  // Published FNV-1a 64-bit test vectors.
  EXPECT_EQ(hash_name(""), 0xCBF29CE484222325ull);
  EXPECT_EQ(hash_name("a"), 0xAF63DC4C8601EC8Cull);
  EXPECT_EQ(hash_name("foobar"), 0x85944171F73967E8ull);
}

TEST(Rng, Mix64IsTheSplitMix64Step) {
  // SplitMix64 from state 0 outputs mix64(0), then mix64(golden ratio constant).
  EXPECT_EQ(mix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(mix64(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
}

TEST(Rng, SequenceIsPinned) {
  // Worked out independently from the documented construction (seed = mix64(master) ^
  // hash_name(name), state words by repeated mix64, then xoshiro256**). A change here changes
  // every simulation result.
  RandomStream r(42, "link");
  EXPECT_EQ(r.seed(), 0x029CA98B46A4269Cull);
  EXPECT_EQ(r.next_u64(), 0x184F4570E571C99Cull);
  EXPECT_EQ(r.next_u64(), 0xCE6A192C7DB95971ull);
  EXPECT_EQ(r.next_u64(), 0x573EB466A1971A20ull);
  RandomStream raw(0);
  EXPECT_EQ(raw.next_u64(), 0x1A70A846BD9CC2A9ull);
  EXPECT_EQ(raw.next_u64(), 0x6A0EF250CD2B9E80ull);
}

TEST(Rng, SameSeedAndNameGiveSameSequence) {
  RandomStream a(7, "switch/3");
  RandomStream b(7, "switch/3");
  EXPECT_EQ(draw(a, 100), draw(b, 100));
}

TEST(Rng, DifferentNamesOrSeedsGiveDifferentSequences) {
  RandomStream base(7, "switch/3");
  RandomStream other_name(7, "switch/4");
  RandomStream other_seed(8, "switch/3");
  const auto x = draw(base, 16);
  EXPECT_NE(x, draw(other_name, 16));
  EXPECT_NE(x, draw(other_seed, 16));
}

TEST(Rng, AddingAStreamDoesNotChangeAnother) {
  RandomStream alone(99, "flowgen");
  const auto expected = draw(alone, 32);

  // Same stream, now created beside others and interleaved with their draws.
  RandomStream before(99, "ecmp");
  RandomStream flowgen(99, "flowgen");
  RandomStream after(99, "loss");
  std::vector<uint64_t> got;
  for (int i = 0; i < 32; ++i) {
    before.next_u64();
    got.push_back(flowgen.next_u64());
    after.uniform();
  }
  EXPECT_EQ(got, expected);
}

TEST(Rng, ForkIsDeterministicAndIndependent) {
  RandomStream parent(5, "host");
  RandomStream child_a = parent.fork("qp/1");
  RandomStream child_a_again = parent.fork("qp/1");
  RandomStream child_b = parent.fork("qp/2");
  EXPECT_EQ(draw(child_a, 16), draw(child_a_again, 16));

  RandomStream child_a_fresh = parent.fork("qp/1");
  EXPECT_NE(draw(child_a_fresh, 16), draw(child_b, 16));

  // Forking depends on the parent's seed, not on how much the parent has drawn, and drawing
  // from a child leaves the parent alone.
  RandomStream twin(5, "host");
  draw(parent, 10);
  RandomStream late = parent.fork("qp/1");
  RandomStream early = RandomStream(5, "host").fork("qp/1");
  EXPECT_EQ(draw(late, 8), draw(early, 8));
  RandomStream reference(5, "host");
  draw(reference, 10);
  EXPECT_EQ(draw(parent, 8), draw(reference, 8));
  EXPECT_NE(draw(twin, 8), draw(late, 8));
}

TEST(Rng, UniformIsInHalfOpenUnitInterval) {
  RandomStream r(1, "uniform");
  double lo = 1;
  double hi = 0;
  double sum = 0;
  constexpr int kN = 100'000;
  for (int i = 0; i < kN; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
  }
  EXPECT_LT(lo, 1e-3);
  EXPECT_GT(hi, 1 - 1e-3);
  // The mean of kN uniforms has standard deviation 1 / sqrt(12 kN), about 0.0009.
  EXPECT_NEAR(sum / kN, 0.5, 0.005);
}

TEST(Rng, UniformIntStaysWithinBounds) {
  RandomStream r(2, "uniform_int");
  std::array<int, 7> seen{};
  for (int i = 0; i < 10'000; ++i) {
    const uint64_t v = r.uniform_int(10, 16);
    ASSERT_GE(v, 10u);
    ASSERT_LE(v, 16u);
    ++seen[v - 10];
  }
  for (int c : seen) EXPECT_GT(c, 0);  // both ends are reachable

  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.uniform_int(42, 42), 42u);

  // Full 64-bit range, and ranges touching its ends, must not overflow.
  bool high_bit = false;
  for (int i = 0; i < 64; ++i) high_bit |= (r.uniform_int(0, UINT64_MAX) >> 63) != 0;
  EXPECT_TRUE(high_bit);
  for (int i = 0; i < 100; ++i) {
    EXPECT_GE(r.uniform_int(UINT64_MAX - 1, UINT64_MAX), UINT64_MAX - 1);
    EXPECT_LE(r.uniform_int(0, 1), 1u);
  }
}

TEST(Rng, UniformIntRejectsAnEmptyRange) {
  RandomStream r(2, "uniform_int");
  EXPECT_THROW(r.uniform_int(5, 4), Error);
}

TEST(Rng, UniformIntPassesChiSquareOverTenBuckets) {
  RandomStream r(2024, "chi-square");
  constexpr int kBuckets = 10;
  constexpr int kDraws = 100'000;
  std::array<int, kBuckets> counts{};
  for (int i = 0; i < kDraws; ++i) ++counts[r.uniform_int(0, kBuckets - 1)];
  const double expected = static_cast<double>(kDraws) / kBuckets;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  // 9 degrees of freedom: P(chi2 > 21.67) = 0.01.
  EXPECT_LT(chi2, 21.67);
  // A generator stuck on one bucket would give chi2 = 900000; a biased one would be far above.
  EXPECT_GT(chi2, 0.0);
}

TEST(Rng, UniformIntIsUnbiasedAtLargeSpans) {
  // n = 3 * 2^62 does not divide 2^64, so 2^64 raw values cannot spread evenly over n results.
  // A plain modulo would put half the draws below 2^62; a multiply-shift without Lemire's
  // rejection step would make half the results multiples of 3. Both should be a third.
  RandomStream r(3, "bias");
  constexpr uint64_t kThird = uint64_t{1} << 62;
  std::array<int, 3> thirds{};
  std::array<int, 3> residues{};
  constexpr int kDraws = 30'000;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t v = r.uniform_int(0, 3 * kThird - 1);
    ++thirds[v / kThird];
    ++residues[v % 3];
  }
  // One standard deviation is about 82 draws; the biased outcomes are 5000 away.
  for (int c : thirds) EXPECT_NEAR(c, kDraws / 3, 600);
  for (int c : residues) EXPECT_NEAR(c, kDraws / 3, 600);
}

TEST(Rng, ExponentialHasTheRequestedMean) {
  RandomStream r(4, "exp");
  constexpr int kN = 100'000;
  double sum = 0;
  for (int i = 0; i < kN; ++i) {
    const double x = r.exponential(5.0);
    ASSERT_GE(x, 0.0);
    sum += x;
  }
  // Standard error of the mean is 5 / sqrt(kN), about 0.016.
  EXPECT_NEAR(sum / kN, 5.0, 0.08);
}

TEST(Rng, ExponentialTimeIsAtLeastOnePicosecond) {
  RandomStream r(5, "exp_time");
  constexpr int kN = 50'000;
  double sum = 0;
  for (int i = 0; i < kN; ++i) {
    const Time t = r.exponential_time(Time::ns(10));
    ASSERT_GE(t, Time::ps(1));
    sum += static_cast<double>(t.picoseconds());
  }
  EXPECT_NEAR(sum / kN, 10'000.0, 150.0);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.exponential_time(Time::ps(0)), Time::ps(1));
}

TEST(Rng, BernoulliMatchesItsProbability) {
  RandomStream r(6, "coin");
  int heads = 0;
  for (int i = 0; i < 100'000; ++i) heads += r.bernoulli(0.3) ? 1 : 0;
  EXPECT_NEAR(heads, 30'000, 600);  // 4 standard deviations of 145
  EXPECT_FALSE(r.bernoulli(0.0));
  EXPECT_TRUE(r.bernoulli(1.0));
}

}  // namespace
}  // namespace bifrost
