#include "bifrost/rnic/qp_context_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <list>

#include "bifrost/core/rng.h"
#include "support/error_message.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

QpContextCache cache_of(std::size_t contexts, Time miss_penalty = Time::us(1)) {
  return QpContextCache({.capacity = kBaseQpContextBytes * contexts, .miss_penalty = miss_penalty},
                        Bytes(0));
}

TEST(QpContextCache, EntriesAreCapacityOverContextSize) {
  EXPECT_EQ(QpContextCache({.capacity = Bytes::KiB(256)}, Bytes(0)).entries(), 1024u);
  // 256 KiB / (256 + 64) B = 819.2: a partial context does not count.
  const QpContextCache with_state({.capacity = Bytes::KiB(256)}, Bytes(64));
  EXPECT_EQ(with_state.context_bytes(), Bytes(320));
  EXPECT_EQ(with_state.entries(), 819u);
  // Exactly one context fits.
  EXPECT_EQ(QpContextCache({.capacity = Bytes(320)}, Bytes(64)).entries(), 1u);
  EXPECT_EQ(testing::error_of([] { QpContextCache({.capacity = Bytes(319)}, Bytes(64)); }),
            "QP-context cache of 319 bytes cannot hold one 320-byte context: use 0 for no cache "
            "or at least 320 bytes");
}

TEST(QpContextCache, Profiles) {
  // The CX6-like profile holds exactly 256 contexts of the state size it is built for.
  for (uint64_t state : {0, 48, 160, 1000}) {
    const QpContextCache cache(qp_cache_profile::cx6_like(Bytes(state)), Bytes(state));
    EXPECT_EQ(cache.entries(), 256u) << state;
    EXPECT_EQ(cache.config().miss_penalty, Time::us(1));
  }
  // FaSR's 1.4 MB of SRAM: 5468 bare contexts, 3645 with 128 bytes of recovery state.
  EXPECT_EQ(qp_cache_profile::fasr_like().capacity, Bytes(1'400'000));
  EXPECT_EQ(QpContextCache(qp_cache_profile::fasr_like(), Bytes(0)).entries(), 5468u);
  EXPECT_EQ(QpContextCache(qp_cache_profile::fasr_like(), Bytes(128)).entries(), 3645u);
}

TEST(QpContextCache, Cx6LikeCacheCollapsesPast256Qps) {
  const Bytes state(160);
  for (uint32_t qps : {256u, 257u}) {
    QpContextCache cache(qp_cache_profile::cx6_like(state), state);
    for (int round = 0; round < 4; ++round) {
      for (uint32_t qp = 0; qp < qps; ++qp) cache.access(qp);
    }
    // 256 QPs: only the first round misses; 257 round-robin QPs: LRU misses every time.
    EXPECT_EQ(cache.misses(), qps == 256 ? 256u : 4u * 257u) << qps;
  }
}

TEST(QpContextCache, EvictsLeastRecentlyUsed) {
  QpContextCache cache = cache_of(3);
  EXPECT_EQ(cache.access(1), Time::us(1));
  EXPECT_EQ(cache.access(2), Time::us(1));
  EXPECT_EQ(cache.access(3), Time::us(1));
  EXPECT_EQ(cache.access(1), Time::zero());  // order, most recent first: 1 3 2
  EXPECT_EQ(cache.access(4), Time::us(1));   // evicts 2
  EXPECT_FALSE(cache.contains(2));
  EXPECT_TRUE(cache.contains(1));
  EXPECT_TRUE(cache.contains(3));
  EXPECT_TRUE(cache.contains(4));
  EXPECT_EQ(cache.access(3), Time::zero());  // 3 4 1
  EXPECT_EQ(cache.access(5), Time::us(1));   // evicts 1
  EXPECT_FALSE(cache.contains(1));
  EXPECT_EQ(cache.access(2), Time::us(1));  // evicts 4
  EXPECT_FALSE(cache.contains(4));
  EXPECT_TRUE(cache.contains(3));
  EXPECT_EQ(cache.resident(), 3u);
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(cache.misses(), 6u);
  EXPECT_EQ(cache.evictions(), 3u);
}

TEST(QpContextCache, CycleLargerThanCacheAlwaysMisses) {
  QpContextCache cache = cache_of(64, Time::ns(1500));
  Time delay;
  for (int round = 0; round < 10; ++round) {
    for (uint32_t qp = 0; qp < 65; ++qp) delay += cache.access(qp * 7919);
  }
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), 650u);
  EXPECT_EQ(cache.evictions(), 650u - 64u);
  EXPECT_EQ(delay, Time::ns(1500) * 650);
  EXPECT_EQ(cache.resident(), 64u);
}

TEST(QpContextCache, CycleThatFitsHitsAfterWarmUp) {
  for (uint32_t qps : {10u, 64u}) {
    QpContextCache cache = cache_of(64);
    for (int round = 0; round < 10; ++round) {
      for (uint32_t qp = 0; qp < qps; ++qp) {
        EXPECT_EQ(cache.access(qp + 1000), round == 0 ? Time::us(1) : Time::zero());
      }
    }
    EXPECT_EQ(cache.misses(), qps);
    EXPECT_EQ(cache.hits(), 9u * qps);
    EXPECT_EQ(cache.evictions(), 0u);
  }
}

TEST(QpContextCache, ZeroCapacityModelsNoCache) {
  QpContextCache cache({.capacity = Bytes(0)}, Bytes(160));
  EXPECT_FALSE(cache.modelled());
  EXPECT_EQ(cache.entries(), 0u);
  for (uint32_t qp = 0; qp < 100'000; ++qp) EXPECT_EQ(cache.access(qp), Time::zero());
  EXPECT_EQ(cache.hits(), 100'000u);
  EXPECT_EQ(cache.misses(), 0u);
  EXPECT_EQ(cache.evictions(), 0u);
  EXPECT_FALSE(cache.contains(5));
}

// Against a plain list-based LRU over random accesses: same hit/miss for every access and the
// same resident set, across sizes that exercise the hash table's growth and deletions.
TEST(QpContextCacheProperty, MatchesAReferenceLru) {
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    RandomStream rng(seed, "qp-context-cache-property");
    const auto contexts = static_cast<std::size_t>(rng.uniform_int(1, 300));
    const uint64_t universe = rng.uniform_int(1, 2 * contexts + 10);
    const bool sparse = rng.bernoulli(0.5);
    QpContextCache cache = cache_of(contexts);
    std::list<uint32_t> reference;  // most recent first
    uint64_t misses = 0;
    for (int k = 0; k < 5000; ++k) {
      auto qp = static_cast<uint32_t>(rng.uniform_int(0, universe - 1));
      if (sparse) qp = qp * 2'654'435'761u;
      const auto it = std::find(reference.begin(), reference.end(), qp);
      const bool hit = it != reference.end();
      if (hit) {
        reference.erase(it);
      } else {
        ++misses;
        if (reference.size() == contexts) reference.pop_back();
      }
      reference.push_front(qp);
      ASSERT_EQ(cache.access(qp), hit ? Time::zero() : Time::us(1)) << "access " << k;
    }
    EXPECT_EQ(cache.misses(), misses);
    EXPECT_EQ(cache.hits() + cache.misses(), 5000u);
    EXPECT_EQ(cache.evictions(), misses - std::min<uint64_t>(misses, contexts));
    ASSERT_EQ(cache.resident(), reference.size());
    for (uint32_t qp : reference) EXPECT_TRUE(cache.contains(qp));
  }
}

}  // namespace
}  // namespace bifrost::rnic
