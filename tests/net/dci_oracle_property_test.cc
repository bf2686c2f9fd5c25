// Theorem 1 judged by a ground-truth oracle (dci_oracle.h) instead of the algorithm's own L + F:
// random long-link rates, propagation delays, slots (10 us among them), k, drain rates and
// frame mixes, with the simulator's leak sources (pauses behind reverse frames, fibre jitter)
// on or off. Bifrost's form must pass; the paper's one-slot full pauses must fail on a chain
// of them; deliberately broken variants must trip the oracle, which shows it can fail.
#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>
#include <set>

#include "net/dci_oracle_run.h"
#include "support/property.h"

namespace bifrost::net {
namespace {

using testing::DrainScript;
using testing::OracleDraw;
using testing::OracleVariant;
using testing::OracleVerdict;

std::string describe(const OracleDraw& d, const OracleVerdict& v) {
  return fmt::format(
      "{} Gb/s, {} us, T {} us, k {}, drain {} Gb/s, jitter {} ps, reverse {}, {} short flows: "
      "in flight - F up to {} (slack {}, {} slots over), peak {} of {}, {} drops, {} of {} ready "
      "periods dry",
      d.long_rate.gbps(), d.one_way.picoseconds() / 1'000'000, d.slot.picoseconds() / 1'000'000,
      d.k, d.drain_rate.gbps(), d.jitter.picoseconds(), d.reverse, d.short_flows, v.worst_uncounted,
      v.slack, v.uncounted_slots, v.peak, v.limit, v.drops, v.dry_periods, v.ready_periods);
}

void expect_holds(const OracleDraw& d, const OracleVerdict& v) {
  SCOPED_TRACE(describe(d, v));
  EXPECT_EQ(v.uncounted_slots, 0u) << "F fell short of the bytes in flight by more than k x S";
  EXPECT_LE(v.peak, v.limit);
  EXPECT_EQ(v.drops, 0u);
  EXPECT_EQ(v.dry_periods, 0u) << "the egress idled while ready";
  EXPECT_GT(v.ready_periods, 0u) << "the idle check ran";
}

TEST(DciOracle, BifrostHoldsForRandomLinksSlotsDrainsAndFrameMixes) {
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const OracleDraw d = testing::draw_oracle_case(seed);
    expect_holds(d, testing::run_oracle_case(d, OracleVariant{}, seed, Time::ms(3)));
  }
}

// The random cases of the default seeds cover what the issue asks to randomise: every rate,
// slot (10 us among them) and k, both leak sources on and off, and frame mixes.
TEST(DciOracle, DefaultSeedsCoverRatesSlotsKsAndLeakSources) {
  std::set<int64_t> rates, slots_us;
  std::set<uint32_t> ks;
  std::set<bool> reverse, jitter, mixed;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const OracleDraw d = testing::draw_oracle_case(seed);
    rates.insert(d.long_rate.bits_per_second());
    slots_us.insert(d.slot.picoseconds() / 1'000'000);
    ks.insert(d.k);
    reverse.insert(d.reverse);
    jitter.insert(d.jitter > Time::zero());
    mixed.insert(d.short_flows > 0);
  }
  EXPECT_EQ(rates, (std::set<int64_t>{25'000'000'000, 100'000'000'000, 400'000'000'000}));
  EXPECT_EQ(slots_us, (std::set<int64_t>{2, 5, 10}));
  EXPECT_EQ(ks, (std::set<uint32_t>{1, 2, 4}));
  EXPECT_EQ(reverse.size(), 2u);
  EXPECT_EQ(jitter.size(), 2u);
  EXPECT_TRUE(mixed.count(true));
}

// The paper's T = 10 us with pauses waiting behind reverse frames (and jitter) in every case:
// the random cases of seeds 101 on, with T and the leak sources fixed.
TEST(DciOracle, BifrostHoldsAtTenMicrosecondSlotsBehindReverseFrames) {
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed + 100);
    OracleDraw d = testing::draw_oracle_case(seed + 100);
    d.slot = Time::us(10);
    d.reverse = true;
    d.jitter = Time::ns(5);
    expect_holds(d, testing::run_oracle_case(d, OracleVariant{}, seed + 100, Time::ms(3)));
  }
}

// A full-rate drain, then none: a chain of full pauses, each arriving up to a frame time and the
// jitter later than the one before it.
OracleDraw chain_case(uint32_t k) {
  OracleDraw d;
  d.slot = Time::us(2);
  d.k = k;
  d.jitter = Time::ns(5);
  d.reverse = true;
  return d;
}

TEST(DciOracle, PaperOneSlotFullPausesFailInAChain) {
  for (uint32_t k : {1u, 2u, 4u}) {
    SCOPED_TRACE(::testing::Message() << "k " << k);
    const OracleDraw d = chain_case(k);
    const OracleVerdict guarded =
        testing::run_oracle_case(d, OracleVariant{}, 7, Time::us(1500), DrainScript::stop);
    EXPECT_TRUE(guarded.holds()) << describe(d, guarded);
    const OracleVerdict paper = testing::run_oracle_case(d, OracleVariant{.guard = false}, 7,
                                                         Time::us(1500), DrainScript::stop);
    EXPECT_FALSE(paper.holds()) << describe(d, paper);
  }
}

// Variants are judged on fixed random cases (the first eight unless named), whatever
// BIFROST_PROPERTY_SEEDS says: how many of them trip the oracle.
uint64_t tripped(const OracleVariant& v,
                 std::initializer_list<uint64_t> seeds = {1, 2, 3, 4, 5, 6, 7, 8}) {
  uint64_t n = 0;
  for (uint64_t seed : seeds) {
    const OracleDraw d = testing::draw_oracle_case(seed);
    const OracleVerdict verdict = testing::run_oracle_case(d, v, seed, Time::ms(2));
    if (!verdict.holds()) {
      ++n;
      std::printf("  tripped, seed %llu: %s\n", static_cast<unsigned long long>(seed),
                  describe(d, verdict).c_str());
    }
  }
  return n;
}

TEST(DciOracleMutation, OneWayDeltaTrips) {
  EXPECT_GT(tripped({.tell_link = [](DciLinkParams& l) { l.propagation = l.propagation / 2; }}),
            0u);
}

TEST(DciOracleMutation, GrantWithoutTheBufferBoundTrips) {
  EXPECT_GT(tripped({.break_rule = [](DciRuleParams& r) { r.h = int64_t{1} << 60; }}), 0u);
}

// Leak handling taken away without the guard: leaks in every chain of full pauses.
TEST(DciOracleMutation, NoLeakHandlingWithoutTheGuardTrips) {
  EXPECT_GT(tripped({.guard = false, .break_rule = [](DciRuleParams& r) { r.leak_every = 0; }}),
            0u);
}

// Algorithm 1 as printed, and each of bifrost's deviations from it taken away alone (the guard:
// PaperOneSlotFullPausesFailInAChain). count_granted and reset_negative_f are off in bifrost's
// form too: no case shows the printed form fail (docs/net.md, "Bifrost DCI").
TEST(DciOracleLiteral, PrintedAlgorithmTrips) {
  EXPECT_GT(tripped({.literal = true}), 0u);
}

TEST(DciOracleLiteral, WithoutEarlyCloseTrips) {
  EXPECT_GT(tripped({.break_rule = [](DciRuleParams& r) { r.deviations.close_early = false; }}),
            0u);
}

TEST(DciOracleLiteral, SignedOverGrantDeductionTrips) {
  EXPECT_GT(tripped({.break_rule = [](DciRuleParams& r) { r.deviations.only_over_grant = false; }}),
            0u);
}

TEST(DciOracleLiteral, PrintedOrderOfRAndCTrips) {
  EXPECT_GT(
      tripped({.break_rule = [](DciRuleParams& r) { r.deviations.subtract_r_first = false; }}), 0u);
}

TEST(DciOracleLiteral, UnboundedFTrips) {
  EXPECT_GT(tripped({.break_rule = [](DciRuleParams& r) { r.deviations.forget_stale = false; }}),
            0u);
}

// count_granted (F += c-hat, at least 0) and reset_negative_f (a negative F reset to 0 on leak
// slots) are two departures from lines 15 and 17 that bifrost no longer takes (docs/net.md,
// "Bifrost DCI"): the oracle finds no case the printed F += c without the reset fails. It runs
// both forms on the cases they were written for, chains of full pauses that wait behind
// reverse frames and jitter (k = 1, 2, 4), and on the first eight random cases: the printed
// form must hold wherever the deviated one does. A case that separates them fails this test
// and is the one to bring the deviation back with.
void count_granted_and_reset(DciRuleParams& r) {
  r.deviations.count_granted = true;
  r.deviations.reset_negative_f = true;
}

TEST(DciOracleLiteral, PrintedFUpdateAndNoNegativeResetHold) {
  const OracleVariant deviated{.break_rule = count_granted_and_reset};
  for (uint32_t k : {1u, 2u, 4u}) {
    SCOPED_TRACE(::testing::Message() << "chain, k " << k);
    const OracleDraw d = chain_case(k);
    const OracleVerdict printed =
        testing::run_oracle_case(d, OracleVariant{}, 7, Time::us(1500), DrainScript::stop);
    const OracleVerdict ours =
        testing::run_oracle_case(d, deviated, 7, Time::us(1500), DrainScript::stop);
    EXPECT_TRUE(printed.holds()) << describe(d, printed);
    EXPECT_TRUE(ours.holds()) << describe(d, ours);
  }
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const OracleDraw d = testing::draw_oracle_case(seed);
    const OracleVerdict printed = testing::run_oracle_case(d, OracleVariant{}, seed, Time::ms(2));
    if (printed.holds()) continue;
    // Only a case the deviated form holds on counts against the printed one.
    const OracleVerdict ours = testing::run_oracle_case(d, deviated, seed, Time::ms(2));
    EXPECT_FALSE(ours.holds()) << "printed: " << describe(d, printed);
  }
}

// Nor do the two replace the guard: without it (the paper's one-slot full pauses) a chain of
// full pauses leaks and drops frames with them as without them (PaperOneSlotFullPausesFailInAChain
// is the printed form's half of this).
TEST(DciOracleLiteral, FUpdateAndNegativeResetDoNotStopChainLeaksWithoutTheGuard) {
  const OracleVariant deviated{.guard = false, .break_rule = count_granted_and_reset};
  for (uint32_t k : {1u, 2u, 4u}) {
    const OracleDraw d = chain_case(k);
    const OracleVerdict v =
        testing::run_oracle_case(d, deviated, 7, Time::us(1500), DrainScript::stop);
    EXPECT_GT(v.drops, 0u) << "k " << k << ": " << describe(d, v);
  }
}

// A known gap, not a property: with T = 2 us and pauses waiting behind reverse frames, 7 of
// seeds 1 to 100 trip the oracle at the holding test's 3 ms (46, 60, 64, 74, 84, 90, 96) and 7
// at 2 ms (46, 60, 67, 88, 90, 96, 98), all with T = 2 us and reverse traffic: F short of the
// bytes in flight by up to 5.3 KB beyond k x S and one to five drops (seed 46: an idle ready
// period instead). A pause that
// arrives later than the one before it lengthens the open window between them; the lengthening
// telescopes in time but not in frames (one more frame can start in a lengthened window, a
// shortened one need not carry one fewer), and leak handling cannot see the extra bytes: they
// leave F with r as they arrive, so L + F stays at H. Closing every window earlier by the
// guard fixes most of these and starves other cases (13 of 100 trip, most by idle ready
// periods). When
// this is fixed, this test fails: move the seeds into the holding tests.
TEST(DciOracleGap, TwoMicrosecondSlotsBehindReverseFramesLeakBeyondKS) {
  for (uint64_t seed : {60u, 88u, 96u, 98u}) {
    const OracleDraw d = testing::draw_oracle_case(seed);
    EXPECT_EQ(d.slot, Time::us(2));
    EXPECT_TRUE(d.reverse);
  }
  EXPECT_EQ(tripped({}, {60, 88, 96, 98}), 4u);
}

}  // namespace
}  // namespace bifrost::net
