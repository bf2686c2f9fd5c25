// RoGUE's send-side window of one in-order RC QP (reliability/wqe_window.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/transport/reliability/wqe_window.h"

namespace bifrost::transport {
namespace {

struct Wqe {
  uint64_t wr_id = 0;
  uint64_t bytes = 0;
};

std::vector<uint64_t> ids(const std::vector<Wqe>& wqes) {
  std::vector<uint64_t> out;
  for (const Wqe& w : wqes) out.push_back(w.wr_id);
  return out;
}

TEST(WqeWindow, ACompletionRetiresItAndEveryUnsignaledWqeBeforeIt) {
  WqeWindow<Wqe> w;
  for (uint64_t id = 1; id <= 5; ++id) w.post(Wqe{.wr_id = id, .bytes = id * 100});
  EXPECT_EQ(w.bytes(), 1500u);
  std::vector<Wqe> retired;
  EXPECT_EQ(w.complete_through(3, [&](const Wqe& x) { retired.push_back(x); }), 3u);
  EXPECT_EQ(ids(retired), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(w.bytes(), 900u);
  EXPECT_EQ(w.front().wr_id, 4u);
}

TEST(WqeWindow, ACompletionOutsideTheWindowRetiresNothing) {
  WqeWindow<Wqe> w;
  for (uint64_t id = 10; id <= 12; ++id) w.post(Wqe{.wr_id = id, .bytes = 1});
  const auto none = [](const Wqe&) { FAIL() << "nothing should retire"; };
  EXPECT_EQ(w.complete_through(9, none), 0u);   // already given up
  EXPECT_EQ(w.complete_through(13, none), 0u);  // never posted
  EXPECT_EQ(w.size(), 3u);
}

TEST(WqeWindow, TakeAllHandsBackWhatAFailedQpLeftOldestFirst) {
  WqeWindow<Wqe> w;
  for (uint64_t id = 1; id <= 40; ++id) w.post(Wqe{.wr_id = id, .bytes = 2});  // grows past 16
  w.complete_through(30, [](const Wqe&) {});
  for (uint64_t id = 41; id <= 60; ++id) w.post(Wqe{.wr_id = id, .bytes = 2});  // wraps
  std::vector<Wqe> taken;
  w.take_all([&](const Wqe& x) { taken.push_back(x); });
  ASSERT_EQ(taken.size(), 30u);
  for (size_t i = 0; i < taken.size(); ++i) EXPECT_EQ(taken[i].wr_id, 31 + i);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.bytes(), 0u);
}

TEST(WqeWindow, WrIdsMustIncrease) {
  WqeWindow<Wqe> w;
  w.post(Wqe{.wr_id = 5, .bytes = 1});
  EXPECT_THROW(w.post(Wqe{.wr_id = 5, .bytes = 1}), Error);
  EXPECT_THROW(w.post(Wqe{.wr_id = 4, .bytes = 1}), Error);
}

}  // namespace
}  // namespace bifrost::transport
