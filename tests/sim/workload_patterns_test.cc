#include <gtest/gtest.h>

#include "support/error_message.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/patterns.h"
#include "support/property.h"

namespace bifrost::sim::workload {
namespace {

std::vector<uint32_t> hosts(uint32_t count) {
  std::vector<uint32_t> h(count);
  std::iota(h.begin(), h.end(), 0);
  return h;
}

using bifrost::testing::error_of;

TEST(Incast, AllSendersToOneReceiverEachRound) {
  IncastSpec spec;
  spec.senders = {1, 2, 3, 4};
  spec.receiver = 0;
  spec.size = Bytes(64'000);
  spec.start = Time::us(5);
  spec.rounds = 3;
  spec.period = Time::us(10);
  spec.tag = "incast";
  const auto flows = generate_incast(spec, RandomStream(1, "i"));
  ASSERT_EQ(flows.size(), 12u);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ(flows[i].id, i);
    EXPECT_EQ(flows[i].dst, 0u);
    EXPECT_EQ(flows[i].src, spec.senders[i % 4]);
    EXPECT_EQ(flows[i].size, Bytes(64'000));
    EXPECT_EQ(flows[i].start, Time::us(5) + Time::us(10) * static_cast<int64_t>(i / 4));
  }
}

TEST(Incast, JitterStaysWithinItsBoundAndIsDeterministic) {
  for (uint64_t seed : testing::property_seeds()) {
    IncastSpec spec;
    spec.senders = {1, 2, 3, 4, 5, 6, 7, 8};
    spec.receiver = 9;
    spec.size = Bytes(1000);
    spec.start = Time::us(1);
    spec.jitter = Time::ns(500);
    const auto flows = generate_incast(spec, RandomStream(seed, "i"));
    EXPECT_EQ(flows, generate_incast(spec, RandomStream(seed, "i")));
    std::set<uint32_t> senders;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      EXPECT_GE(flows[i].start, Time::us(1));
      EXPECT_LE(flows[i].start, Time::us(1) + Time::ns(500));
      if (i > 0) {
        EXPECT_LE(flows[i - 1].start, flows[i].start);
      }
      senders.insert(flows[i].src);
    }
    EXPECT_EQ(senders.size(), 8u) << "seed " << seed;
  }
}

TEST(Incast, InvalidSpecsAreErrors) {
  IncastSpec spec;
  spec.senders = {1, 2};
  spec.receiver = 2;
  spec.size = Bytes(10);
  EXPECT_EQ(error_of([&] { generate_incast(spec, RandomStream(1)); }),
            "incast: the receiver, host 2, is also a sender");
  spec.receiver = 0;
  spec.rounds = 2;
  EXPECT_EQ(error_of([&] { generate_incast(spec, RandomStream(1)); }),
            "incast: 2 rounds need a period greater than zero");
  spec.rounds = 1;
  spec.size = Bytes(0);
  EXPECT_EQ(error_of([&] { generate_incast(spec, RandomStream(1)); }),
            "incast: flow size must be at least 1 byte");
  spec.size = Bytes(10);
  spec.jitter = Time::ns(-1);
  EXPECT_EQ(error_of([&] { generate_incast(spec, RandomStream(1)); }),
            "incast: jitter must not be negative");
}

TEST(AllToAll, EveryOrderedPairOnce) {
  AllToAllSpec spec;
  spec.hosts = {3, 5, 7, 11, 13};
  spec.size = Bytes(1'000'000);
  const auto flows = generate_all_to_all(spec, RandomStream(1, "a"));
  ASSERT_EQ(flows.size(), 20u);
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const Flow& f : flows) {
    EXPECT_NE(f.src, f.dst);
    pairs.insert({f.src, f.dst});
  }
  EXPECT_EQ(pairs.size(), 20u);
  EXPECT_EQ(error_of([&] {
              spec.hosts = {1};
              generate_all_to_all(spec, RandomStream(1));
            }),
            "all-to-all: needs at least 2 hosts, got 1");
}

TEST(Derangement, IsAPermutationWithoutFixedPoints) {
  for (uint64_t seed : testing::property_seeds()) {
    RandomStream rng(seed, "d");
    for (uint32_t n = 2; n <= 64; ++n) {
      auto d = random_derangement(n, rng);
      ASSERT_EQ(d.size(), n);
      for (uint32_t i = 0; i < n; ++i) ASSERT_NE(d[i], i) << "seed " << seed << " n " << n;
      std::sort(d.begin(), d.end());
      ASSERT_EQ(d, hosts(n)) << "seed " << seed << " n " << n;
    }
  }
  RandomStream rng(1);
  EXPECT_EQ(error_of([&] { random_derangement(1, rng); }),
            "a derangement needs at least 2 elements, got 1");
}

TEST(Derangement, EveryDerangementIsEquallyLikely) {
  // 4 elements have 9 derangements; 90000 draws give 10000 each, binomial sd about 94.
  RandomStream rng(5, "d");
  std::map<std::vector<uint32_t>, int> counts;
  for (int i = 0; i < 90'000; ++i) ++counts[random_derangement(4, rng)];
  EXPECT_EQ(counts.size(), 9u);
  for (const auto& [d, count] : counts) EXPECT_NEAR(count, 10'000, 500);
}

TEST(Permutation, EveryHostSendsOnceAndReceivesOnce) {
  for (uint64_t seed : testing::property_seeds()) {
    PermutationSpec spec;
    spec.hosts = {10, 11, 12, 13, 14, 15, 16};
    spec.size = Bytes(2'000'000);
    spec.jitter = Time::us(1);
    const auto flows = generate_permutation(spec, RandomStream(seed, "p"));
    EXPECT_EQ(flows, generate_permutation(spec, RandomStream(seed, "p")));
    ASSERT_EQ(flows.size(), 7u);
    std::set<uint32_t> senders;
    std::set<uint32_t> receivers;
    for (const Flow& f : flows) {
      EXPECT_NE(f.src, f.dst);
      senders.insert(f.src);
      receivers.insert(f.dst);
    }
    EXPECT_EQ(senders.size(), 7u);
    EXPECT_EQ(receivers, senders) << "seed " << seed;
  }
}

TEST(MergeFlows, OrdersByStartKeepingListOrderOnTiesAndRenumbers) {
  const std::vector<Flow> a = {{7, 0, 1, Bytes(1), Time::us(2), 0, "a"},
                               {8, 0, 1, Bytes(2), Time::us(5), 0, "a"}};
  const std::vector<Flow> b = {{3, 2, 3, Bytes(3), Time::us(2), 0, "b"},
                               {4, 2, 3, Bytes(4), Time::us(1), 0, "b"}};
  const auto merged = merge_flows({a, b});
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0].size, Bytes(4));
  EXPECT_EQ(merged[1].size, Bytes(1));
  EXPECT_EQ(merged[2].size, Bytes(3));
  EXPECT_EQ(merged[3].size, Bytes(2));
  for (std::size_t i = 0; i < merged.size(); ++i) EXPECT_EQ(merged[i].id, i);
}

}  // namespace
}  // namespace bifrost::sim::workload
