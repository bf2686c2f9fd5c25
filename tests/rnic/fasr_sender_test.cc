// FaSR's sender (section III-B) driven directly: its state in the shared pool from the first
// SACK on, the bitmap only on the slow path, the RTO rule's three cases, lost-cnt compared as
// the receiver carries it (never counted locally), the AACK that resolves the rule's ambiguity,
// lost-cnt overflow, FNACK once per new ACK, and the go-back fallback of an exhausted pool.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "bifrost/rnic/recovery/fasr_pool.h"
#include "bifrost/rnic/recovery/fasr_requester.h"

namespace bifrost::rnic::recovery {
namespace {

using Psns = std::vector<uint32_t>;

RecoveryConfig sender_config() {
  RecoveryConfig c;
  c.kind = EngineKind::fasr;
  c.bdp_packets = 64;
  return c;
}

struct Sender {
  explicit Sender(FasrPoolConfig pool_config = {20, 70, 10})
      : pool(std::make_shared<FasrPool>(pool_config)), tx(sender_config(), pool) {
    tx.on_ack(0);
  }
  void sack(uint32_t una, uint32_t psn, uint32_t snd_max, uint8_t lost, bool overflow = false) {
    tx.on_sack_state(lost, overflow);
    tx.on_sack(una, psn, snd_max);
  }
  // A cumulative ACK; an AACK when `lost` is given.
  void ack(uint32_t una, int lost = -1) {
    tx.on_ack(una);
    if (lost >= 0) tx.on_aack(static_cast<uint8_t>(lost), false);
  }
  Psns drain(uint32_t una, uint32_t snd_max) {
    Psns out;
    while (const auto psn = tx.next_retransmission(una, snd_max)) out.push_back(*psn);
    return out;
  }
  std::shared_ptr<FasrPool> pool;
  FasrRequester tx;
};

// The sender holds nothing in the pool.
void expect_no_pool_state(const Sender& s) {
  EXPECT_FALSE(s.tx.recovering());
  EXPECT_EQ(s.pool->usage().units_in_use, 0u);
  EXPECT_EQ(s.pool->usage().blocks_in_use, 0u);
}

TEST(FasrSender, HoldsNoPoolStateUntilTheFirstSack) {
  Sender s;
  s.ack(5);
  s.tx.on_timeout(5, 9);
  EXPECT_EQ(s.drain(5, 9), (Psns{5, 6, 7, 8}));
  expect_no_pool_state(s);
  EXPECT_EQ(s.pool->usage().unit_allocations, 0u);
}

TEST(FasrSender, FirstSackTakesAUnitAndResendsUnackToTheSack) {
  Sender s;
  s.sack(5, 6, 20, 1);  // 5 lost
  EXPECT_TRUE(s.tx.recovering());
  EXPECT_FALSE(s.tx.slow());
  EXPECT_EQ(s.pool->usage().units_in_use, 1u);
  EXPECT_EQ(s.pool->usage().sender_unit_allocations, 1u);
  EXPECT_EQ(s.pool->usage().blocks_in_use, 0u);  // fast path: no bitmap
  EXPECT_EQ(s.drain(5, 20), (Psns{5}));
  s.sack(5, 7, 20, 1);  // contiguous: nothing to resend
  EXPECT_TRUE(s.drain(5, 20).empty());
  EXPECT_EQ(s.tx.sack_high(), 7u);
  s.ack(8);  // UNACK passed sack-high: the unit goes back
  EXPECT_FALSE(s.tx.recovering());
  EXPECT_EQ(s.pool->usage().units_in_use, 0u);
}

TEST(FasrSender, FirstSackResendsUnackToTheSackWhateverLostCntSays) {
  Sender s;
  // lost-cnt 1 although three PSNs precede the SACK: the SACKs of 6 and 7 were lost. The
  // paper resends [UNACK, SACK) "regardless of the value of lost-cnt".
  s.sack(5, 8, 20, 1);
  EXPECT_EQ(s.drain(5, 20), (Psns{5, 6, 7}));
  EXPECT_FALSE(s.tx.slow());
}

TEST(FasrSender, LostCntAboveOneTakesTheBitmap) {
  Sender s;
  s.sack(5, 8, 20, 3);  // 5, 6, 7 lost
  EXPECT_TRUE(s.tx.slow());
  EXPECT_EQ(s.tx.blocks(), 1u);  // [6, 16) of 10-bit blocks
  EXPECT_EQ(s.drain(5, 20), (Psns{5, 6, 7}));
}

// The RTO rule, section III-B, one case at a time.
TEST(FasrSender, TimeoutWithLostCntZeroGoesBackToUnack) {
  Sender s;
  s.tx.on_timeout(3, 7);
  EXPECT_EQ(s.drain(3, 7), (Psns{3, 4, 5, 6}));
  EXPECT_EQ(s.tx.bitmap_queries(), 0u);
}

TEST(FasrSender, TimeoutWithLostCntOneResendsUnackOnlyWithoutTheBitmap) {
  Sender s;
  s.sack(3, 4, 10, 1);
  for (uint32_t p = 5; p < 9; ++p) s.sack(3, p, 10, 1);
  s.drain(3, 10);
  s.tx.on_timeout(3, 10);
  EXPECT_EQ(s.drain(3, 10), (Psns{3}));
  EXPECT_EQ(s.tx.bitmap_queries(), 0u);
  EXPECT_EQ(s.pool->usage().blocks_in_use, 0u);
}

TEST(FasrSender, TimeoutWithLostCntAboveOneResendsUnackAndTheBitmapsHoles) {
  Sender s;
  s.sack(5, 6, 30, 1);                   // 5 lost: fast path
  s.sack(5, 9, 30, 1);                   // 6..8's SACKs lost; lost-cnt did not grow: they arrived
  EXPECT_EQ(s.drain(5, 30), (Psns{5}));  // the first SACK's [5, 6)
  s.sack(5, 12, 30, 3);                  // 10, 11 lost: lost-cnt grew to 3
  EXPECT_TRUE(s.tx.slow());
  EXPECT_EQ(s.drain(5, 30), (Psns{10, 11}));
  s.sack(5, 13, 30, 3);
  s.tx.on_timeout(5, 30);
  // UNACK, then the zeros between UNACK and sack-high (13): not 6..9 or 12.
  EXPECT_EQ(s.drain(5, 30), (Psns{5, 10, 11}));
  EXPECT_EQ(s.tx.bitmap_queries(), 1u);
}

// The sender compares the lost-cnt the receiver carries with the one it carried before; it
// does not count. An ACK that passes a hole leaves lost-cnt as the receiver last said.
TEST(FasrSender, ComparesCarriedLostCntInsteadOfCountingLocally) {
  Sender s;
  s.sack(1, 4, 20, 3);  // 1, 2, 3 lost
  s.drain(1, 20);
  s.ack(2);  // a plain ACK: the resend of 1 arrived
  EXPECT_EQ(s.tx.lost_cnt(), 3);
  s.sack(2, 5, 20, 2);  // the receiver says 2 now: contiguous, nothing to resend
  EXPECT_EQ(s.tx.lost_cnt(), 2);
  EXPECT_TRUE(s.drain(2, 20).empty());
}

// The paper's rule is ambiguous when lost-cnt falls without a SACK saying so: retransmissions
// are answered with ACKs, which in the paper carry no lost-cnt. Here the receiver's lost-cnt
// goes 3 -> 2 (1's resend arrives) -> 3 (9 is lost). A sender still holding the 3 of the last
// SACK sees no growth when the SACK of 10 arrives and takes 9 for delivered: the loss waits
// for a timeout. Carrying lost-cnt on the ACK (the AACK) resolves it.
TEST(FasrSender, AckWithoutLostCntHidesALaterLossAndTheAackRevealsIt) {
  {
    Sender paper;
    paper.sack(1, 4, 20, 3);
    paper.sack(1, 8, 20, 3);  // 4..7 arrive; 8 is the last SACK before 1's resend lands
    paper.drain(1, 20);
    paper.ack(2);              // a plain ACK: the sender's lost-cnt stays 3
    paper.sack(2, 10, 20, 3);  // 9 lost, lost-cnt back to 3: looks like "no growth"
    EXPECT_TRUE(paper.drain(2, 20).empty()) << "the paper's rule misses 9";
    paper.tx.on_timeout(2, 20);
    EXPECT_EQ(paper.drain(2, 20), (Psns{2, 3})) << "and its RTO takes 9 for delivered";
  }
  {
    Sender aack;
    aack.sack(1, 4, 20, 3);
    aack.sack(1, 8, 20, 3);
    aack.drain(1, 20);
    aack.ack(2, 2);  // the AACK carries lost-cnt 2
    aack.sack(2, 10, 20, 3);
    EXPECT_EQ(aack.drain(2, 20), (Psns{9}));
    aack.tx.on_timeout(2, 20);
    EXPECT_EQ(aack.drain(2, 20), (Psns{2, 3, 9}));
  }
}

// An AACK can show a rise of lost-cnt before the SACK that reports it (that SACK was lost, or
// the ACK of a duplicate overtook it). Adopted, it would make that SACK's gap look like lost
// SACKs; the sender keeps its count, and the gap is resent when the next SACK shows the rise.
TEST(FasrSender, AackDoesNotAdoptARiseSoTheNextSackStillResendsItsGap) {
  Sender s;
  s.sack(1, 2, 20, 1);  // 1 lost: fast path
  EXPECT_EQ(s.drain(1, 20), (Psns{1}));
  s.ack(1, 2);  // 3 was lost and its SACK (of 4) too; a duplicate's AACK says 2
  EXPECT_EQ(s.tx.lost_cnt(), 1);
  EXPECT_FALSE(s.tx.slow());
  s.sack(1, 5, 20, 2);  // the gap 3..4 with lost-cnt 1 -> 2: a loss
  EXPECT_EQ(s.drain(1, 20), (Psns{3, 4}));
  EXPECT_EQ(s.tx.lost_cnt(), 2);
  EXPECT_TRUE(s.tx.slow());
}

TEST(FasrSender, AackBackToOneReturnsTheBitmap) {
  Sender s;
  s.sack(1, 4, 20, 3);
  ASSERT_TRUE(s.tx.slow());
  s.ack(2, 2);
  EXPECT_TRUE(s.tx.slow());
  s.ack(3, 1);  // only UNACK missing again: fast path, the blocks go back
  EXPECT_FALSE(s.tx.slow());
  EXPECT_EQ(s.pool->usage().blocks_in_use, 0u);
  EXPECT_EQ(s.pool->usage().units_in_use, 1u);
  s.tx.on_timeout(3, 20);
  EXPECT_EQ(s.drain(3, 20), (Psns{3}));
}

// Reordering on the way back: a SACK sent before a retransmission arrived (lost-cnt 2) reaches
// the sender after the AACK of that retransmission (lost-cnt 1), with no gap to its sack-high.
// Section III-B resends SACK..sack-high only for a gap with a grown lost-cnt, and keeps the
// bitmap for lost-cnt > 1: a rise without a gap is stale, and the fast path must not hold
// lost-cnt > 1 without a bitmap (its RTO would then resend UNACK only and skip the bitmap).
TEST(FasrSender, ReorderedSackWithoutAGapDoesNotRaiseLostCntOnTheFastPath) {
  Sender s;
  s.sack(1, 4, 20, 2);  // 1 and 3 lost (2 arrived): slow path
  ASSERT_TRUE(s.tx.slow());
  EXPECT_EQ(s.drain(1, 20), (Psns{1, 2, 3}));
  s.ack(3, 1);  // 1's resend arrived: only 3 missing, back to the fast path
  ASSERT_FALSE(s.tx.slow());
  s.sack(3, 5, 20, 2);  // sent before that AACK, overtaken by it: no gap after 4
  EXPECT_TRUE(s.drain(3, 20).empty());
  EXPECT_EQ(s.tx.sack_high(), 5u);
  EXPECT_EQ(s.tx.lost_cnt(), 1);
  EXPECT_FALSE(s.tx.slow());
  EXPECT_EQ(s.pool->usage().blocks_in_use, 0u);
  // A real loss after it still shows as a gap with a grown lost-cnt.
  s.sack(3, 8, 20, 3);  // 6 and 7 lost too: 3, 6, 7 missing
  EXPECT_EQ(s.drain(3, 20), (Psns{6, 7}));
  EXPECT_EQ(s.tx.lost_cnt(), 3);
  EXPECT_TRUE(s.tx.slow());
}

TEST(FasrSender, OverflowResendsEveryGapWithoutLostCntGrowing) {
  Sender s;
  s.sack(0, 8, 40, 7, true);
  EXPECT_EQ(s.drain(0, 40), (Psns{0, 1, 2, 3, 4, 5, 6, 7}));
  s.sack(0, 12, 40, 7, true);  // lost-cnt stays 7: overflow says nothing more
  EXPECT_EQ(s.drain(0, 40), (Psns{9, 10, 11}));
  // Its timeout consults the bitmap, as lost-cnt > 1 does.
  s.tx.on_timeout(0, 40);
  EXPECT_EQ(s.drain(0, 40), (Psns{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(s.tx.bitmap_queries(), 1u);
}

TEST(FasrSender, FnackActsOncePerNewAck) {
  Sender s;
  s.sack(1, 4, 10, 3);
  EXPECT_EQ(s.drain(1, 10), (Psns{1, 2, 3}));
  s.tx.on_fnack(1, 10);  // an early timeout by lost-cnt 3
  EXPECT_EQ(s.drain(1, 10), (Psns{1, 2, 3}));
  s.tx.on_fnack(1, 10);  // no new ACK since: ignored
  s.tx.on_fnack(1, 10);
  EXPECT_TRUE(s.drain(1, 10).empty());
  EXPECT_EQ(s.tx.early_timeouts(), 1u);
  s.ack(1, 3);  // an ACK that moves nothing does not re-arm it
  s.tx.on_fnack(1, 10);
  EXPECT_TRUE(s.drain(1, 10).empty());
  s.ack(2, 2);  // a new ACK
  s.tx.on_fnack(2, 10);
  EXPECT_EQ(s.drain(2, 10), (Psns{2, 3}));
  EXPECT_EQ(s.tx.early_timeouts(), 2u);
}

TEST(FasrSender, NoFreeUnitGoesBackToUnackOncePerNewAck) {
  Sender s(FasrPoolConfig{1, 4, 10});
  const int32_t taken = s.pool->allocate_unit();  // another QP holds the only unit
  s.sack(5, 8, 20, 3);
  EXPECT_FALSE(s.tx.recovering());
  EXPECT_EQ(s.drain(5, 20), (Psns{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
  EXPECT_EQ(s.pool->usage().sender_fallbacks, 1u);
  s.sack(5, 9, 20, 3);  // no new ACK: ignored
  EXPECT_TRUE(s.drain(5, 20).empty());
  s.pool->release_unit(taken);
  s.ack(6);
  s.sack(6, 10, 20, 3);  // a unit is free again
  EXPECT_TRUE(s.tx.recovering());
  EXPECT_EQ(s.drain(6, 20), (Psns{6, 7, 8, 9}));
}

TEST(FasrSender, TooFewBlocksForTheSlowPathGoBackToUnack) {
  Sender s(FasrPoolConfig{2, 1, 10});
  s.sack(5, 20, 30, 3);  // needs [6, 16) and [16, 26): one block is not enough
  expect_no_pool_state(s);
  EXPECT_EQ(s.pool->usage().sender_fallbacks, 1u);
  EXPECT_EQ(s.drain(5, 30).size(), 25u);
}

TEST(FasrSender, ANakReturnsTheUnitAndGoesBack) {
  Sender s;
  s.sack(5, 8, 20, 3);
  s.drain(5, 20);
  s.tx.on_nak(6, 20);
  expect_no_pool_state(s);
  EXPECT_EQ(s.drain(6, 20).front(), 6u);
}

TEST(FasrSender, SlowPathCompressesARunOfAtLeastOneBlock) {
  Sender s;
  s.sack(1, 2, 40, 1);
  s.sack(1, 14, 40, 1);  // 2..14 arrived: a run of 13 after UNACK
  s.drain(1, 40);
  s.sack(1, 16, 40, 2);  // 15 lost: slow path; the run compresses, the bitmap starts at 15
  EXPECT_TRUE(s.tx.slow());
  EXPECT_EQ(s.pool->unit(0).compression, 13);
  EXPECT_EQ(s.tx.blocks(), 1u);
  EXPECT_EQ(s.drain(1, 40), (Psns{15}));
  s.tx.on_timeout(1, 40);
  EXPECT_EQ(s.drain(1, 40), (Psns{1, 15}));
}

TEST(FasrSender, DestroyingASenderInRecoveryReturnsItsUnit) {
  auto pool = std::make_shared<FasrPool>(FasrPoolConfig{20, 70, 10});
  {
    FasrRequester tx(sender_config(), pool);
    tx.on_sack_state(3, false);
    tx.on_sack(1, 4, 10);
    EXPECT_EQ(pool->usage().units_in_use, 1u);
    EXPECT_EQ(pool->usage().blocks_in_use, 1u);
  }
  EXPECT_EQ(pool->usage().units_in_use, 0u);
  EXPECT_EQ(pool->usage().blocks_in_use, 0u);
}

}  // namespace
}  // namespace bifrost::rnic::recovery
