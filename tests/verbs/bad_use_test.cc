// The verbs library called in-process (its static build, without libibverbs): one soft RNIC
// on a per-process loopback address, two RC QPs connected to each other through it. What the
// spec reports as completions comes as completions with its status; what rdma-core refuses at
// once returns an error with bad_wr; no byte outside the target range is touched.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kBytes = 4096;
constexpr uint8_t kCanary = 0xA5;

// 127.A.B.1 from the pid, so parallel test processes do not share UDP 4791 on one address.
std::string loopback_gid() {
  const auto pid = static_cast<unsigned>(::getpid());
  return "127." + std::to_string(100 + pid % 100) + "." + std::to_string((pid / 100) % 250) + ".1";
}

class VerbsBadUse : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("BIFROST_VERBS_GIDS", loopback_gid().c_str(), 1);
    ::setenv("BIFROST_VERBS_LOG", "error", 1);
    int n = 0;
    ibv_device** list = ibv_get_device_list(&n);
    ASSERT_EQ(n, 1);
    context_ = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    ASSERT_NE(context_, nullptr) << std::strerror(errno);
    pd_ = ibv_alloc_pd(context_);
    cq_ = ibv_create_cq(context_, 64, nullptr, nullptr, 0);
    ASSERT_NE(cq_, nullptr);
    source_.assign(kBytes, std::byte{0x11});
    target_.assign(kBytes + 128, std::byte{kCanary});
    for (size_t i = 0; i < kBytes; ++i) source_[i] = std::byte(i * 7);
    source_mr_ = ibv_reg_mr(pd_, source_.data(), kBytes, IBV_ACCESS_LOCAL_WRITE);
    // Relaxed ordering is optional: accepted and ignored, as libibverbs does.
    target_mr_ = ibv_reg_mr(pd_, target_.data() + 64, kBytes,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING);
    ASSERT_NE(source_mr_, nullptr);
    ASSERT_NE(target_mr_, nullptr);
  }

  void TearDown() override {
    for (ibv_qp* qp : qps_) ibv_destroy_qp(qp);
    if (source_mr_ != nullptr) ibv_dereg_mr(source_mr_);
    if (target_mr_ != nullptr) ibv_dereg_mr(target_mr_);
    if (cq_ != nullptr) ibv_destroy_cq(cq_);
    if (pd_ != nullptr) ibv_dealloc_pd(pd_);
    if (context_ != nullptr) ibv_close_device(context_);
  }

  ibv_qp* make_qp() {
    ibv_qp_init_attr init{};
    init.send_cq = cq_;
    init.recv_cq = cq_;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = 16;
    init.cap.max_recv_wr = 16;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = 64;
    ibv_qp* qp = ibv_create_qp(pd_, &init);
    EXPECT_NE(qp, nullptr);
    qps_.push_back(qp);
    return qp;
  }

  // RESET -> INIT -> RTR -> RTS towards `peer`, with perftest's attributes.
  void connect(ibv_qp* qp, const ibv_qp* peer) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    ASSERT_EQ(
        ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
        0);
    a = {};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = peer->qp_num;
    a.rq_psn = 100;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    ASSERT_EQ(ibv_query_gid(context_, 1, 0, &a.ah_attr.grh.dgid), 0);
    ASSERT_EQ(ibv_modify_qp(qp, &a,
                            IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
              0);
    a = {};
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 100;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    ASSERT_EQ(ibv_modify_qp(qp, &a,
                            IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC),
              0);
  }

  // A pair of QPs connected to each other; returns the requester.
  ibv_qp* connected_requester() {
    ibv_qp* a = make_qp();
    ibv_qp* b = make_qp();
    connect(a, b);
    connect(b, a);
    return a;
  }

  ibv_wc wait_completion() {
    ibv_wc wc{};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      const int n = ibv_poll_cq(cq_, 1, &wc);
      EXPECT_GE(n, 0);
      if (n == 1) return wc;
    }
    ADD_FAILURE() << "no completion within 10 s";
    return wc;
  }

  int post(ibv_qp* qp, ibv_wr_opcode op, ibv_sge sge, uint32_t rkey, ibv_send_wr** bad,
           int flags = IBV_SEND_SIGNALED) {
    ibv_send_wr wr{};
    wr.wr_id = 42;
    wr.opcode = op;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = static_cast<unsigned>(flags);
    wr.wr.rdma.remote_addr = reinterpret_cast<uint64_t>(target_.data() + 64);
    wr.wr.rdma.rkey = rkey;
    ibv_send_wr* unused = nullptr;
    const int rc = ibv_post_send(qp, &wr, bad != nullptr ? bad : &unused);
    if (bad != nullptr && rc != 0) {
      EXPECT_EQ(*bad, &wr);
    }
    return rc;
  }

  ibv_sge source_sge(uint32_t length = kBytes) const {
    return ibv_sge{reinterpret_cast<uint64_t>(source_.data()), length, source_mr_->lkey};
  }

  bool target_untouched() const {
    for (size_t i = 0; i < target_.size(); ++i) {
      if (target_[i] != std::byte{kCanary}) return false;
    }
    return true;
  }

  ibv_context* context_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_mr* source_mr_ = nullptr;
  ibv_mr* target_mr_ = nullptr;
  std::vector<std::byte> source_;
  std::vector<std::byte> target_;
  std::vector<ibv_qp*> qps_;
};

TEST_F(VerbsBadUse, WriteLandsByteExactAndNothingAround) {
  ibv_qp* qp = connected_requester();
  ASSERT_EQ(post(qp, IBV_WR_RDMA_WRITE, source_sge(), target_mr_->rkey, nullptr), 0);
  const ibv_wc wc = wait_completion();
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
  EXPECT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
  EXPECT_EQ(wc.wr_id, 42u);
  EXPECT_EQ(std::memcmp(target_.data() + 64, source_.data(), kBytes), 0);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(target_[i], std::byte{kCanary});
    EXPECT_EQ(target_[64 + kBytes + i], std::byte{kCanary});
  }
}

TEST_F(VerbsBadUse, InlineWriteNeedsNoKey) {
  ibv_qp* qp = connected_requester();
  ibv_sge sge{reinterpret_cast<uint64_t>(source_.data()), 60, 0};
  ASSERT_EQ(post(qp, IBV_WR_RDMA_WRITE, sge, target_mr_->rkey, nullptr,
                 IBV_SEND_SIGNALED | IBV_SEND_INLINE),
            0);
  EXPECT_EQ(wait_completion().status, IBV_WC_SUCCESS);
  EXPECT_EQ(std::memcmp(target_.data() + 64, source_.data(), 60), 0);
}

TEST_F(VerbsBadUse, PostInResetFailsAtOnceWithBadWr) {
  ibv_qp* qp = make_qp();
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(post(qp, IBV_WR_RDMA_WRITE, source_sge(), target_mr_->rkey, &bad), EINVAL);
  ibv_recv_wr rwr{};
  ibv_sge sge = source_sge();
  rwr.sg_list = &sge;
  rwr.num_sge = 1;
  ibv_recv_wr* bad_recv = nullptr;
  EXPECT_EQ(ibv_post_recv(qp, &rwr, &bad_recv), EINVAL);
  EXPECT_EQ(bad_recv, &rwr);
  ibv_wc wc;
  EXPECT_EQ(ibv_poll_cq(cq_, 1, &wc), 0);
  EXPECT_TRUE(target_untouched());
}

TEST_F(VerbsBadUse, UnregisteredLkeyCompletesWithLocalProtectionError) {
  ibv_qp* qp = connected_requester();
  ibv_sge sge = source_sge();
  sge.lkey = source_mr_->lkey ^ 0x5A5A5A5A;
  ASSERT_EQ(post(qp, IBV_WR_RDMA_WRITE, sge, target_mr_->rkey, nullptr), 0);
  const ibv_wc wc = wait_completion();
  EXPECT_EQ(wc.status, IBV_WC_LOC_PROT_ERR) << ibv_wc_status_str(wc.status);
  EXPECT_EQ(wc.wr_id, 42u);
  EXPECT_TRUE(target_untouched());
  ibv_qp_attr attr;
  ibv_qp_init_attr init;
  ASSERT_EQ(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init), 0);
  EXPECT_EQ(attr.qp_state, IBV_QPS_ERR);
}

TEST_F(VerbsBadUse, ReadIntoMemoryWithoutLocalWriteCompletesWithLocalProtectionError) {
  ibv_qp* qp = connected_requester();
  std::vector<std::byte> read_only(kBytes, std::byte{kCanary});
  ibv_mr* mr = ibv_reg_mr(pd_, read_only.data(), kBytes, 0);
  ASSERT_NE(mr, nullptr);
  ibv_sge sge{reinterpret_cast<uint64_t>(read_only.data()), kBytes, mr->lkey};
  ASSERT_EQ(post(qp, IBV_WR_RDMA_READ, sge, target_mr_->rkey, nullptr), 0);
  const ibv_wc wc = wait_completion();
  EXPECT_EQ(wc.status, IBV_WC_LOC_PROT_ERR) << ibv_wc_status_str(wc.status);
  for (std::byte b : read_only) ASSERT_EQ(b, std::byte{kCanary});
  ibv_dereg_mr(mr);
}

TEST_F(VerbsBadUse, WrongRkeyCompletesWithRemoteAccessError) {
  ibv_qp* qp = connected_requester();
  ASSERT_EQ(post(qp, IBV_WR_RDMA_WRITE, source_sge(), target_mr_->rkey + 1, nullptr), 0);
  const ibv_wc wc = wait_completion();
  EXPECT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR) << ibv_wc_status_str(wc.status);
  EXPECT_TRUE(target_untouched());
}

TEST_F(VerbsBadUse, RefusedVerbsSayEopnotsupp) {
  ibv_srq_init_attr srq{};
  errno = 0;
  EXPECT_EQ(ibv_create_srq(pd_, &srq), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  EXPECT_EQ(ibv_reg_mr(pd_, source_.data(), kBytes, IBV_ACCESS_ON_DEMAND), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
}

TEST_F(VerbsBadUse, PortAndGidDescribeRoceV2) {
  ibv_port_attr port{};
  ASSERT_EQ(ibv_query_port(context_, 1, &port), 0);
  EXPECT_EQ(port.state, IBV_PORT_ACTIVE);
  EXPECT_EQ(port.link_layer, IBV_LINK_LAYER_ETHERNET);
  EXPECT_EQ(port.gid_tbl_len, 1);
  ibv_gid_entry entry{};
  ASSERT_EQ(ibv_query_gid_ex(context_, 1, 0, &entry, 0), 0);
  EXPECT_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V2);
  EXPECT_EQ(entry.gid.raw[10], 0xFF);
  EXPECT_EQ(entry.gid.raw[11], 0xFF);
  EXPECT_EQ(entry.gid.raw[12], 127);
}

}  // namespace
