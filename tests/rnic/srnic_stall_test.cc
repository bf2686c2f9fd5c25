// SRNIC's host-memory bitmaps as the FaSR paper describes them (sections II, V-A, V-D2): the
// NIC records out-of-order PSNs and SACKs in nanoseconds, but pauses its receive pipeline for
// the 1.2 us PCIe round trip whenever it needs an answer from the host bitmap: updating RCV-NXT
// over recorded PSNs, and looking up the PSNs to resend when a SACK opens a new hole. IRN keeps
// its bitmaps on the NIC and never stalls.
#include <gtest/gtest.h>

#include <memory>

#include "bifrost/rnic/recovery/engine.h"

namespace bifrost::rnic::recovery {
namespace {

constexpr Time kQuery = Time::ns(1200);

std::unique_ptr<Engine> engine(EngineKind kind) {
  RecoveryConfig c;
  c.kind = kind;
  c.bdp_packets = 128;
  return make_engine(c);
}

TEST(SrnicStall, TheDefaultQueryIsThePapers1200Ns) {
  EXPECT_EQ(RecoveryConfig{}.srnic_bitmap_access, kQuery);
  EXPECT_TRUE(engine(EngineKind::srnic)->stalls_pipeline());
  EXPECT_FALSE(engine(EngineKind::irn)->stalls_pipeline());
}

// The receiver as the pipeline sees it: PSN 10 is lost, 11..13 arrive out of order, then the
// retransmission of 10 fills the hole and RCV-NXT jumps to 14.
TEST(SrnicStall, ReceiverStallsOnlyToMoveRcvNxtOverRecordedPsns) {
  const auto srnic = engine(EngineKind::srnic);
  const auto rx = srnic->make_responder();
  uint32_t expected = 0;
  for (uint32_t psn = 0; psn < 10; ++psn) {  // in order, nothing recorded: no query
    EXPECT_EQ(rx->pipeline_stall(psn, expected), Time::zero()) << psn;
    ASSERT_EQ(rx->classify(psn, expected, 1), Arrival::in_order);
    expected = rx->advance(expected, 1);
  }
  for (uint32_t psn = 11; psn <= 13; ++psn) {  // out of order: a posted write, nanoseconds
    EXPECT_EQ(rx->pipeline_stall(psn, expected), Time::zero()) << psn;
    ASSERT_EQ(rx->classify(psn, expected, 1), Arrival::out_of_order);
    rx->record(psn, 1);
  }
  EXPECT_EQ(rx->pipeline_stall(12, expected), Time::zero());  // a duplicate
  EXPECT_EQ(rx->pipeline_stall(10, expected), kQuery);        // the retransmission
  ASSERT_EQ(rx->classify(10, expected, 1), Arrival::in_order);
  expected = rx->advance(expected, 1);
  EXPECT_EQ(expected, 14u);
  EXPECT_EQ(rx->pipeline_stall(14, expected), Time::zero());  // back in order
}

// The sender: SACKs for 11, 12, 13 while 10 is missing, then 16 while 14 and 15 are missing.
TEST(SrnicStall, SenderStallsOnceForEachSackThatOpensAHole) {
  const auto srnic = engine(EngineKind::srnic);
  const auto tx = srnic->make_requester();
  EXPECT_EQ(tx->sack_stall(10, 11), kQuery);        // 10 is a new hole: look it up
  EXPECT_EQ(tx->sack_stall(10, 12), Time::zero());  // extends the SACKed run
  EXPECT_EQ(tx->sack_stall(10, 13), Time::zero());
  EXPECT_EQ(tx->sack_stall(10, 16), kQuery);        // 14 and 15 newly missing
  EXPECT_EQ(tx->sack_stall(10, 15), Time::zero());  // fills in below sack-high: nothing new
  // The hole was repaired (una moved to 17) and a later loss at 30 opens a new one.
  EXPECT_EQ(tx->sack_stall(30, 31), kQuery);
  // A SACK right at una (the cumulative PSN's successor arrived) opens no hole.
  EXPECT_EQ(tx->sack_stall(40, 40), Time::zero());
}

TEST(SrnicStall, IrnNeverStalls) {
  const auto irn = engine(EngineKind::irn);
  const auto rx = irn->make_responder();
  rx->record(5, 1);
  EXPECT_EQ(rx->pipeline_stall(0, 0), Time::zero());
  EXPECT_EQ(irn->make_requester()->sack_stall(0, 5), Time::zero());
}

}  // namespace
}  // namespace bifrost::rnic::recovery
