// FaSR's NIC memory: the level-1 unit's layout (section III-D), the pool's size, the paper's
// accounting (section V-A) and the Fig. 8(b) crossover that follows from it, and the
// like-for-like count of what every engine here keeps on the NIC, the sender's state included.
#include <gtest/gtest.h>

#include <cstdint>

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/recovery/fasr_pool.h"
#include "bifrost/rnic/recovery/fasr_unit_layout.h"

namespace bifrost::rnic::recovery {
namespace {

// The NIC memory n QPs need, as Device::recovery_memory_bytes computes it.
uint64_t total(const Engine& engine, uint64_t qps) {
  const MemoryFootprint f = engine.footprint();
  return qps * (kBaseContextBytes + f.per_qp_bytes) + f.shared_bytes;
}

RecoveryConfig config(EngineKind kind) {
  RecoveryConfig c;
  c.kind = kind;
  // The paper's single-QP bench: 100 Gb/s, 6 us base RTT, 1 KB MTU: 74 packets in flight.
  c.bdp_packets = 74;
  return c;
}

// The level-1 unit as section III-D lays it out: 20 B of state and, for five bitmaps, two
// 1-byte pointers, a 10-bit compression-cnt and a 3-bit lost-cnt: 305 bits, the paper's 38 B.
TEST(FasrMemory, UnitLayoutIsThePapers38Bytes) {
  constexpr FasrUnitLayout layout;
  EXPECT_EQ(layout.pointer_bits, 8u);
  EXPECT_EQ(layout.per_bitmap_bits(), 2 * 8u + 10 + 3);
  EXPECT_EQ(layout.bits(), 160u + 5 * 29);
  EXPECT_EQ(layout.bits(), 305u);
  EXPECT_EQ(layout.bits() / 8, FasrUnitLayout::kPaperBytes);  // 38.1 B, "38B"
  // The counters' widths bound what they count.
  EXPECT_EQ(FasrPool::kMaxCompression, 1023);
  EXPECT_EQ(FasrPool::kMaxLostCnt, 7);
  // 1-byte pointers name 256 blocks; a larger pool needs wider ones.
  EXPECT_EQ(fasr_unit_layout(70).bits(), 305u);
  EXPECT_EQ(fasr_unit_layout(256).bits(), 305u);
  EXPECT_EQ(fasr_unit_layout(257).pointer_bits, 9u);
  EXPECT_EQ(fasr_unit_layout(257).bits(), 315u);
}

TEST(FasrMemory, SectionIIIDSizingIs923Bytes) {
  // 20 units of 305 bits + 70 blocks of 10 bits with 7-bit next pointers, and an availability
  // bit each: 7,380 bits, the paper's "0.92 KB".
  EXPECT_EQ(fasr_pool_bytes(FasrPoolConfig{20, 70, 10}), 923u);
}

TEST(FasrMemory, DefaultPoolIsTheLargestWithinThePapers1600BytesThatTheUnitCanAddress) {
  const FasrPoolConfig pool{};
  EXPECT_EQ(pool.block_bits, 16u);
  EXPECT_EQ(pool.blocks, 256u);
  // 20 x (305 + 1) + 256 x (16 + 8 + 1) bits.
  EXPECT_EQ(fasr_pool_bytes(pool), 1565u);
  EXPECT_GT(fasr_pool_bytes(FasrPoolConfig{20, 257, 16}), 1600u);
}

// The first QP count from which FaSR's SR overhead stays below `other`'s, by `count`.
uint64_t crossover(const Engine& fasr, const Engine& other,
                   MemoryFootprint (Engine::*count)() const) {
  const MemoryFootprint f = (fasr.*count)();
  const MemoryFootprint o = (other.*count)();
  for (uint64_t n = 1; n < 100000; ++n) {
    if (n * f.per_qp_bytes + f.shared_bytes < n * o.per_qp_bytes + o.shared_bytes) return n;
  }
  return 0;
}

// Section V-A's accounting and Fig. 8(b): "1B of SR state pointer per QP and 1600B of SR
// state share overhead" against SRNIC's 12 B and IRN's 20 B + five BDP bitmaps: FaSR needs the
// least "when the number of QPs exceeds 145".
TEST(FasrMemory, PapersAccountingCrossesSrnicAbove145Qps) {
  const auto fasr = make_engine(config(EngineKind::fasr));
  const auto irn = make_engine(config(EngineKind::irn));
  const auto srnic = make_engine(config(EngineKind::srnic));
  EXPECT_EQ(fasr->footprint().per_qp_bytes, 1u);
  EXPECT_EQ(fasr->footprint().shared_bytes, 1600u);
  EXPECT_EQ(irn->footprint().per_qp_bytes, 20u + 5 * 10);  // five 74-bit bitmaps
  EXPECT_EQ(srnic->footprint().per_qp_bytes, 12u);
  EXPECT_EQ(crossover(*fasr, *srnic, &Engine::footprint), 146u);  // 1600 / 11 = 145.5
  EXPECT_EQ(crossover(*fasr, *irn, &Engine::footprint), 24u);     // 1600 / 69 = 23.2
  EXPECT_GE(total(*fasr, 145), total(*srnic, 145));
  EXPECT_LT(total(*fasr, 146), total(*srnic, 146));
}

// The like-for-like count: what each engine here keeps on the NIC, the sender's state too.
TEST(FasrMemory, ImplementedAccountingCountsBothHalves) {
  const auto gbn = make_engine(config(EngineKind::gbn));
  const auto fasr = make_engine(config(EngineKind::fasr));
  const auto irn = make_engine(config(EngineKind::irn));
  const auto srnic = make_engine(config(EngineKind::srnic));
  EXPECT_EQ(gbn->implemented_footprint().per_qp_bytes, 0u);
  // Two 8-bit unit pointers and six flags; the pool as laid out.
  EXPECT_EQ(fasr->implemented_footprint().per_qp_bytes, 3u);
  EXPECT_EQ(fasr->implemented_footprint().shared_bytes, 1565u);
  // IRN: received (74) + SACKed and resent (2 x 74) + 73 bits of sender state = 295 bits.
  EXPECT_EQ(irn->implemented_footprint().per_qp_bytes, 37u);
  // SRNIC: the NIC's bitmap word and index (82) + the same sender (221) = 303 bits.
  EXPECT_EQ(srnic->implemented_footprint().per_qp_bytes, 38u);
  EXPECT_EQ(crossover(*fasr, *srnic, &Engine::implemented_footprint), 45u);  // 1565 / 35
  EXPECT_EQ(crossover(*fasr, *irn, &Engine::implemented_footprint), 47u);    // 1565 / 34
}

// The like-for-like count is the per-QP states' own: each engine's implemented footprint per
// QP is what a requester and a responder it makes report, and it follows their configuration.
TEST(FasrMemory, ImplementedAccountingIsWhatThePerQpStatesReport) {
  for (const EngineKind kind :
       {EngineKind::gbn, EngineKind::irn, EngineKind::srnic, EngineKind::fasr}) {
    SCOPED_TRACE(to_string(kind));
    const auto engine = make_engine(config(kind));
    const uint64_t bits =
        engine->make_requester()->nic_state_bits() + engine->make_responder()->nic_state_bits();
    EXPECT_EQ(engine->implemented_footprint().per_qp_bytes, bytes_of_bits(bits));
  }
  // IRN's bitmaps follow the BDP cap: 3 x 128 + 73 bits.
  RecoveryConfig irn = config(EngineKind::irn);
  irn.bdp_packets = 128;
  EXPECT_EQ(make_engine(irn)->make_requester()->nic_state_bits(), 2 * 128u + 73);
  EXPECT_EQ(make_engine(irn)->implemented_footprint().per_qp_bytes, bytes_of_bits(3 * 128 + 73));
  // FaSR's unit pointers widen past 255 units: 10 bits each for 600.
  RecoveryConfig fasr = config(EngineKind::fasr);
  fasr.fasr_pool.units = 600;
  const auto big = make_engine(fasr);
  EXPECT_EQ(big->make_requester()->nic_state_bits(), 10u + 2);
  EXPECT_EQ(big->make_responder()->nic_state_bits(), 10u + 4);
  EXPECT_EQ(big->implemented_footprint().per_qp_bytes, 4u);
}

TEST(FasrMemory, InvalidPoolsAreRefusedWithAReason) {
  RecoveryConfig c = config(EngineKind::fasr);
  c.fasr_pool.block_bits = 12;
  try {
    make_engine(c);
    FAIL() << "a 12-bit block was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("10 or 16 bits"), std::string::npos) << e.what();
  }
  c.fasr_pool = FasrPoolConfig{0, 10, 16};
  EXPECT_THROW(make_engine(c), Error);
}

TEST(FasrEngineKind, ParsesAndPrints) {
  EXPECT_EQ(parse_engine_kind("fasr"), EngineKind::fasr);
  EXPECT_EQ(to_string(EngineKind::fasr), "fasr");
  try {
    parse_engine_kind("sack");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fasr"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bifrost::rnic::recovery
