#include "bifrost/rnic/queue_pair.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "bifrost/rnic/completion_queue.h"
#include "support/error_message.h"

namespace bifrost::rnic {

// Stable parameter names keep the test names ctest discovers the same from build to build.
void PrintTo(QpType type, std::ostream* os) {
  *os << to_string(type);
}

namespace {

using testing::error_of;
using M = QpAttrMask;

constexpr uint32_t kQpn = 0x123;

// Every attribute set to a legal, non-default value.
QpAttr full(QpState state) {
  QpAttr a;
  a.state = state;
  a.pkey_index = 0;
  a.port = 1;
  a.qkey = 0x11111111;
  a.access_flags = Access::remote_write | Access::remote_read;
  a.av = AddressVector{world::Ipv4::of(10, 0, 0, 2), 1};
  a.path_mtu = 4096;
  a.dest_qp_num = 0xabcdef;
  a.rq_psn = 100;
  a.sq_psn = 200;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 6;
  a.min_rnr_timer = 12;
  a.max_rd_atomic = 4;
  a.max_dest_rd_atomic = 8;
  a.udp_sport = 50000;
  return a;
}

M to_init(QpType t) {
  return M::state | M::pkey_index | M::port | (t == QpType::ud ? M::qkey : M::access_flags);
}
M to_rtr(QpType t) {
  if (t == QpType::ud) return M::state;
  const M uc = M::state | M::av | M::path_mtu | M::dest_qp_num | M::rq_psn;
  return t == QpType::rc ? uc | M::max_dest_rd_atomic | M::min_rnr_timer : uc;
}
M to_rts(QpType t) {
  if (t != QpType::rc) return M::state | M::sq_psn;
  return M::state | M::sq_psn | M::timeout | M::retry_cnt | M::rnr_retry | M::max_rd_atomic;
}

class QpTest : public ::testing::TestWithParam<QpType> {
 protected:
  QueuePair make() { return QueuePair(kQpn, GetParam(), ProtectionDomain{1}, cq_, cq_, limits_); }
  void drive(QueuePair& qp, QpState target) {
    const QpType t = GetParam();
    if (target == QpState::reset) return;
    qp.modify(full(QpState::init), to_init(t));
    if (target == QpState::init) return;
    qp.modify(full(QpState::rtr), to_rtr(t));
    if (target == QpState::rtr) return;
    qp.modify(full(QpState::rts), to_rts(t));
    if (target == QpState::rts) return;
    if (target == QpState::sqd) qp.modify(full(QpState::sqd), M::state);
    if (target == QpState::err) qp.modify(full(QpState::err), M::state);
  }

  CompletionQueue cq_{1, 16};
  QpLimits limits_{2, 4096, 16};
};

TEST_P(QpTest, WalksResetInitRtrRtsAndKeepsTheAttributes) {
  QueuePair qp = make();
  EXPECT_EQ(qp.state(), QpState::reset);
  drive(qp, QpState::rts);
  const QpAttr& a = qp.query();
  EXPECT_EQ(a.state, QpState::rts);
  EXPECT_EQ(a.sq_psn, 200u);
  if (GetParam() == QpType::ud) {
    EXPECT_EQ(a.qkey, 0x11111111u);
    EXPECT_EQ(a.dest_qp_num, 0u);  // UD addresses each send, not the QP
  } else {
    EXPECT_EQ(a.access_flags, Access::remote_write | Access::remote_read);
    EXPECT_EQ(a.av, (AddressVector{world::Ipv4::of(10, 0, 0, 2), 1}));
    EXPECT_EQ(a.path_mtu, 4096u);
    EXPECT_EQ(a.dest_qp_num, 0xabcdefu);
    EXPECT_EQ(a.rq_psn, 100u);
  }
  if (GetParam() == QpType::rc) {
    EXPECT_EQ(a.timeout, 14);
    EXPECT_EQ(a.retry_cnt, 7);
    EXPECT_EQ(a.rnr_retry, 6);
    EXPECT_EQ(a.min_rnr_timer, 12);
    EXPECT_EQ(a.max_rd_atomic, 4);
    EXPECT_EQ(a.max_dest_rd_atomic, 8);
  }
}

TEST_P(QpTest, EveryLegalTransitionSucceeds) {
  const std::vector<std::pair<QpState, QpState>> legal = {
      {QpState::reset, QpState::reset}, {QpState::reset, QpState::init},
      {QpState::reset, QpState::err},   {QpState::init, QpState::init},
      {QpState::init, QpState::rtr},    {QpState::init, QpState::reset},
      {QpState::init, QpState::err},    {QpState::rtr, QpState::rts},
      {QpState::rtr, QpState::reset},   {QpState::rtr, QpState::err},
      {QpState::rts, QpState::rts},     {QpState::rts, QpState::sqd},
      {QpState::rts, QpState::reset},   {QpState::rts, QpState::err},
      {QpState::sqd, QpState::sqd},     {QpState::sqd, QpState::rts},
      {QpState::sqd, QpState::reset},   {QpState::sqd, QpState::err},
      {QpState::err, QpState::err},     {QpState::err, QpState::reset}};
  for (const auto& [from, to] : legal) {
    QueuePair qp = make();
    drive(qp, from);
    ASSERT_EQ(qp.state(), from);
    const QpType t = GetParam();
    M mask = M::state;
    if (from == QpState::reset && to == QpState::init) mask = to_init(t);
    if (from == QpState::init && to == QpState::rtr) mask = to_rtr(t);
    if (from == QpState::rtr && to == QpState::rts) mask = to_rts(t);
    EXPECT_EQ(error_of([&] { qp.modify(full(to), mask); }), "no error")
        << to_string(from) << "->" << to_string(to);
    EXPECT_EQ(qp.state(), to);
  }
}

TEST_P(QpTest, ModifyWithoutStateChangesAttributesInPlace) {
  QueuePair qp = make();
  drive(qp, QpState::rts);
  QpAttr a = full(QpState::reset);  // ignored: the mask has no state bit
  a.udp_sport = 61000;
  qp.modify(a, M::udp_sport);
  EXPECT_EQ(qp.state(), QpState::rts);
  EXPECT_EQ(qp.query().udp_sport, 61000);
}

TEST_P(QpTest, ResetForgetsTheAttributes) {
  QueuePair qp = make();
  drive(qp, QpState::rts);
  qp.modify(full(QpState::reset), M::state);
  EXPECT_EQ(qp.query().sq_psn, 0u);
  EXPECT_EQ(qp.query().udp_sport, 0);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QpTest, ::testing::Values(QpType::rc, QpType::uc, QpType::ud),
                         [](const auto& p) { return std::string(to_string(p.param)); });

struct Illegal {
  QpType type;
  QpState from;
  QpState to;
  M mask;
  const char* message;
};

void PrintTo(const Illegal& c, std::ostream* os) {
  *os << to_string(c.type) << '_' << to_string(c.from) << "_to_" << to_string(c.to);
}

class QpIllegal : public ::testing::TestWithParam<Illegal> {};

TEST_P(QpIllegal, ThrowsWithTheExactMessageAndLeavesTheQpAlone) {
  const Illegal& c = GetParam();
  CompletionQueue cq(1, 4);
  QueuePair qp(kQpn, c.type, ProtectionDomain{1}, cq, cq, QpLimits{2, 2048, 16});
  // Reach `from` with full masks.
  if (c.from != QpState::reset) qp.modify(full(QpState::init), to_init(c.type));
  if (c.from == QpState::rtr || c.from == QpState::rts) {
    QpAttr a = full(QpState::rtr);
    a.path_mtu = 2048;
    qp.modify(a, to_rtr(c.type));
  }
  if (c.from == QpState::rts) qp.modify(full(QpState::rts), to_rts(c.type));
  if (c.from == QpState::err) qp.modify(full(QpState::err), M::state);
  ASSERT_EQ(qp.state(), c.from);
  const QpAttr before = qp.query();
  // The device allows 2048 bytes; only the case about the MTU itself asks for 4096.
  QpAttr a = full(c.to);
  if (std::string(c.message).find("path_mtu = 4096") == std::string::npos) a.path_mtu = 2048;
  EXPECT_EQ(error_of([&] { qp.modify(a, c.mask); }), c.message);
  EXPECT_EQ(qp.state(), c.from);
  EXPECT_EQ(qp.query().sq_psn, before.sq_psn);
}

constexpr auto R = QpType::rc;
constexpr auto U = QpType::uc;
constexpr auto D = QpType::ud;
using S = QpState;

INSTANTIATE_TEST_SUITE_P(
    Table, QpIllegal,
    ::testing::Values(
        Illegal{R, S::reset, S::rtr, M::state,
                "QP 291 (RC): illegal transition RESET->RTR; from RESET a QP may go to RESET, "
                "INIT, ERR"},
        Illegal{U, S::reset, S::rts, M::state,
                "QP 291 (UC): illegal transition RESET->RTS; from RESET a QP may go to RESET, "
                "INIT, ERR"},
        Illegal{D, S::reset, S::sqd, M::state,
                "QP 291 (UD): illegal transition RESET->SQD; from RESET a QP may go to RESET, "
                "INIT, ERR"},
        Illegal{R, S::init, S::rts, M::state,
                "QP 291 (RC): illegal transition INIT->RTS; from INIT a QP may go to RESET, "
                "INIT, RTR, ERR"},
        Illegal{R, S::rtr, S::rtr, M::none,
                "QP 291 (RC): illegal transition RTR->RTR; from RTR a QP may go to RESET, RTS, "
                "ERR"},
        Illegal{U, S::rtr, S::init, M::state,
                "QP 291 (UC): illegal transition RTR->INIT; from RTR a QP may go to RESET, RTS, "
                "ERR"},
        Illegal{R, S::rts, S::rtr, M::state,
                "QP 291 (RC): illegal transition RTS->RTR; from RTS a QP may go to RESET, RTS, "
                "SQD, ERR"},
        Illegal{D, S::err, S::rts, M::state,
                "QP 291 (UD): illegal transition ERR->RTS; from ERR a QP may go to RESET, ERR"},
        Illegal{U, S::err, S::init, M::state,
                "QP 291 (UC): illegal transition ERR->INIT; from ERR a QP may go to RESET, ERR"},
        Illegal{R, S::reset, S::init, M::state | M::pkey_index | M::port,
                "QP 291 (RC): RESET->INIT is missing required attribute(s) access_flags"},
        Illegal{D, S::reset, S::init, M::state | M::access_flags,
                "QP 291 (UD): RESET->INIT is missing required attribute(s) pkey_index, port, "
                "qkey"},
        Illegal{D, S::reset, S::init, to_init(D) | M::access_flags,
                "QP 291 (UD): RESET->INIT does not accept attribute(s) access_flags"},
        Illegal{R, S::init, S::rtr, to_rtr(U),
                "QP 291 (RC): INIT->RTR is missing required attribute(s) min_rnr_timer, "
                "max_dest_rd_atomic"},
        Illegal{U, S::init, S::rtr, M::state | M::path_mtu,
                "QP 291 (UC): INIT->RTR is missing required attribute(s) av, dest_qp_num, "
                "rq_psn"},
        Illegal{U, S::init, S::rtr, to_rtr(U) | M::timeout,
                "QP 291 (UC): INIT->RTR does not accept attribute(s) timeout"},
        Illegal{D, S::init, S::rtr, M::state | M::av,
                "QP 291 (UD): INIT->RTR does not accept attribute(s) av"},
        Illegal{R, S::rtr, S::rts, M::state | M::sq_psn,
                "QP 291 (RC): RTR->RTS is missing required attribute(s) timeout, retry_cnt, "
                "rnr_retry, max_rd_atomic"},
        Illegal{D, S::rtr, S::rts, M::state,
                "QP 291 (UD): RTR->RTS is missing required attribute(s) sq_psn"},
        Illegal{R, S::rts, S::rts, M::path_mtu,
                "QP 291 (RC): RTS->RTS does not accept attribute(s) path_mtu"},
        Illegal{R, S::rts, S::err, M::state | M::sq_psn,
                "QP 291 (RC): RTS->ERR does not accept attribute(s) sq_psn"},
        Illegal{R, S::init, S::rtr, to_rtr(R),
                "QP 291 (RC): INIT->RTR: path_mtu = 4096 is invalid: use 256, 512, 1024, 2048 "
                "or 4096 bytes, at most the device's 2048"},
        Illegal{R, S::reset, S::init, to_init(R) | M::qkey,
                "QP 291 (RC): RESET->INIT does not accept attribute(s) qkey"}),
    [](const auto& p) { return std::to_string(p.index); });

TEST(QpValues, RejectsOutOfRangeValuesNamingThem) {
  CompletionQueue cq(1, 4);
  QueuePair qp(7, QpType::rc, ProtectionDomain{1}, cq, cq, QpLimits{2, 4096, 16});
  QpAttr a = full(QpState::init);
  a.port = 2;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_init(QpType::rc)); }),
            "QP 7 (RC): RESET->INIT: port = 2 is invalid: the device has port 1 only");
  a = full(QpState::init);
  a.access_flags = Access::local_write;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_init(QpType::rc)); }),
            "QP 7 (RC): RESET->INIT: access_flags = 1 is invalid: a QP grants remote rights only "
            "(remote_write, remote_read, remote_atomic)");
  qp.modify(full(QpState::init), to_init(QpType::rc));
  a = full(QpState::rtr);
  a.av.sgid_index = 2;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_rtr(QpType::rc)); }),
            "QP 7 (RC): INIT->RTR: av.sgid_index = 2 is invalid: the GID table has 2 entries");
  a = full(QpState::rtr);
  a.path_mtu = 1500;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_rtr(QpType::rc)); }),
            "QP 7 (RC): INIT->RTR: path_mtu = 1500 is invalid: use 256, 512, 1024, 2048 or 4096 "
            "bytes, at most the device's 4096");
  a = full(QpState::rtr);
  a.rq_psn = 1u << 24;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_rtr(QpType::rc)); }),
            "QP 7 (RC): INIT->RTR: rq_psn = 16777216 is invalid: PSNs have 24 bits");
  qp.modify(full(QpState::rtr), to_rtr(QpType::rc));
  a = full(QpState::rts);
  a.retry_cnt = 8;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_rts(QpType::rc)); }),
            "QP 7 (RC): RTR->RTS: retry_cnt = 8 is invalid: use 0..7");
  a = full(QpState::rts);
  a.timeout = 32;
  EXPECT_EQ(error_of([&] { qp.modify(a, to_rts(QpType::rc)); }),
            "QP 7 (RC): RTR->RTS: timeout = 32 is invalid: use 0..31");
  EXPECT_EQ(qp.state(), QpState::rtr);
}

TEST(QpAttrMask, NamesItsBits) {
  EXPECT_EQ(to_string(M::none), "none");
  EXPECT_EQ(to_string(M::state | M::udp_sport | M::av), "state, av, udp_sport");
}

}  // namespace
}  // namespace bifrost::rnic
