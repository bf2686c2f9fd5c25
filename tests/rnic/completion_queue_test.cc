#include "bifrost/rnic/completion_queue.h"

#include <gtest/gtest.h>

#include <array>

#include "support/error_message.h"

namespace bifrost::rnic {
namespace {

using testing::error_of;

WorkCompletion wc(uint64_t wr_id, uint32_t qp_num) {
  return make_completion(wr_id, WcStatus::success, WcOpcode::send, 64, std::nullopt, qp_num,
                         Time::ns(wr_id));
}

TEST(CompletionQueue, PollsInArrivalOrderAcrossSharingQps) {
  CompletionQueue cq(3, 8);
  cq.push(wc(1, 10));
  cq.push(wc(2, 11));
  cq.push(make_completion(3, WcStatus::success, WcOpcode::recv_rdma_with_imm, 0, 0xabcd, 10,
                          Time::ns(9)));
  std::array<WorkCompletion, 4> out{};
  ASSERT_EQ(cq.poll(2, out), 2u);
  EXPECT_EQ(out[0].wr_id, 1u);
  EXPECT_EQ(out[0].qp_num, 10u);
  EXPECT_EQ(out[1].wr_id, 2u);
  EXPECT_EQ(out[1].qp_num, 11u);
  ASSERT_EQ(cq.poll(4, out), 1u);
  EXPECT_EQ(out[0].opcode, WcOpcode::recv_rdma_with_imm);
  EXPECT_EQ(out[0].imm, 0xabcdu);
  EXPECT_EQ(out[0].byte_len, 0u);
  EXPECT_EQ(out[0].hw_timestamp, Time::ns(9));
  EXPECT_EQ(cq.poll(4, out), 0u);
}

TEST(CompletionQueue, OverrunIsAnErrorStateThatPollReports) {
  CompletionQueue cq(5, 2);
  EXPECT_TRUE(cq.push(wc(1, 2)));
  EXPECT_TRUE(cq.push(wc(2, 2)));
  EXPECT_FALSE(cq.overrun());
  EXPECT_FALSE(cq.push(wc(3, 2)));
  EXPECT_TRUE(cq.overrun());
  // Once overrun, nothing more is accepted even after room appears.
  EXPECT_FALSE(cq.push(wc(4, 2)));
  EXPECT_EQ(cq.lost(), 2u);
  std::array<WorkCompletion, 2> out{};
  EXPECT_EQ(error_of([&] { cq.poll(2, out); }),
            "CQ 5 overran: 2 completion(s) arrived while all 2 entries were full and were lost; "
            "the CQ is unusable, create it with room for every completion its QPs can have "
            "outstanding");
}

TEST(CompletionQueue, RejectsBadSizes) {
  EXPECT_EQ(error_of([] { CompletionQueue(1, 0); }), "CQ 1: capacity must be at least 1 entry");
  CompletionQueue cq(1, 4);
  std::array<WorkCompletion, 2> out{};
  EXPECT_EQ(error_of([&] { cq.poll(3, out); }), "CQ 1: poll for 3 completions into an array of 2");
}

TEST(CompletionQueue, NamesStatusesAndOpcodes) {
  EXPECT_EQ(to_string(WcStatus::retry_exceeded), "retry_exceeded");
  EXPECT_EQ(to_string(WcStatus::rnr_retry_exceeded), "rnr_retry_exceeded");
  EXPECT_EQ(to_string(WcStatus::flush_error), "flush_error");
  EXPECT_EQ(to_string(WcOpcode::recv_rdma_with_imm), "recv_rdma_with_imm");
}

}  // namespace
}  // namespace bifrost::rnic
