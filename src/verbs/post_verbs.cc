// Posting work: ibv_send_wr / ibv_recv_wr chains into the soft RNIC's work requests. What the
// spec reports as a completion (a bad lkey, a READ into memory without local write, a remote
// key that does not match) comes as a completion from the NIC; what rdma-core refuses at once
// (a QP in RESET, a full queue, a request the QP cannot carry) returns an errno with bad_wr.
#include <arpa/inet.h>

#include <cstring>

#include "bifrost/rnic/requester.h"
#include "bifrost/rnic/work_request.h"
#include "data_path_ops.h"
#include "guard.h"
#include "nic_runtime.h"
#include "objects.h"

namespace bifrost::verbs {

namespace {

bool opcode_of(ibv_wr_opcode op, rnic::WrOpcode& out) {
  switch (op) {
    case IBV_WR_SEND:
      out = rnic::WrOpcode::send;
      return true;
    case IBV_WR_SEND_WITH_IMM:
      out = rnic::WrOpcode::send_with_imm;
      return true;
    case IBV_WR_RDMA_WRITE:
      out = rnic::WrOpcode::rdma_write;
      return true;
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      out = rnic::WrOpcode::rdma_write_with_imm;
      return true;
    case IBV_WR_RDMA_READ:
      out = rnic::WrOpcode::rdma_read;
      return true;
    default:
      return false;  // atomics, send with invalidate, memory windows, TSO
  }
}

// The one scatter/gather element, or an empty one for a zero-length request.
rnic::Sge sge_of(int num_sge, const ibv_sge* list) {
  if (num_sge == 0) return rnic::Sge{};
  return rnic::Sge{.addr = list[0].addr, .length = list[0].length, .lkey = list[0].lkey};
}

// Copies an inline request's bytes into the QP's ring and points the request there.
int stage_inline(Qp& q, rnic::SendWr& wr) {
  if (wr.sge.length > q.cap.max_inline_data) return EINVAL;
  if (wr.sge.length == 0) return 0;
  const uint64_t slot = q.inline_posted++ % q.inline_slots;
  std::byte* at = q.inline_ring + slot * q.cap.max_inline_data;
  std::memcpy(at, reinterpret_cast<const void*>(wr.sge.addr), wr.sge.length);
  wr.sge.addr = reinterpret_cast<uint64_t>(at);
  wr.sge.lkey = q.inline_lkey;
  return 0;
}

int post_one_send(NicRuntime& nic, Qp& q, const ibv_send_wr& in) {
  rnic::SendWr wr;
  if (!opcode_of(in.opcode, wr.opcode) || in.num_sge < 0 || in.num_sge > 1) return EINVAL;
  const rnic::QpState state = q.qp->state();
  if (state != rnic::QpState::rts && state != rnic::QpState::err) return EINVAL;
  if (q.qp->requester()->outstanding() >= nic.device().data_path().max_send_wr) return ENOMEM;
  wr.wr_id = in.wr_id;
  wr.sge = sge_of(in.num_sge, in.sg_list);
  wr.signaled = q.sq_sig_all || (in.send_flags & IBV_SEND_SIGNALED) != 0;
  wr.solicited = (in.send_flags & IBV_SEND_SOLICITED) != 0;
  if (wr.opcode == rnic::WrOpcode::send_with_imm ||
      wr.opcode == rnic::WrOpcode::rdma_write_with_imm) {
    wr.imm = ntohl(in.imm_data);
  }
  if (wr.opcode == rnic::WrOpcode::rdma_write || wr.opcode == rnic::WrOpcode::rdma_write_with_imm ||
      wr.opcode == rnic::WrOpcode::rdma_read) {
    wr.remote_addr = in.wr.rdma.remote_addr;
    wr.rkey = in.wr.rdma.rkey;
  }
  if (q.qp->type() == rnic::QpType::ud) {
    if (in.wr.ud.ah == nullptr) return EINVAL;
    const Ah& ah = object_of<Ah>(in.wr.ud.ah);
    // A Q_Key with the high bit set means "use the QP's own".
    const uint32_t qkey =
        (in.wr.ud.remote_qkey & 0x80000000u) != 0 ? q.qp->query().qkey : in.wr.ud.remote_qkey;
    wr.ud = rnic::UdDestination{.ip = ah.dest,
                                .qp_num = in.wr.ud.remote_qpn,
                                .qkey = qkey,
                                .traffic_class = ah.traffic_class};
  }
  if ((in.send_flags & IBV_SEND_INLINE) != 0 && wr.opcode != rnic::WrOpcode::rdma_read) {
    if (const int err = stage_inline(q, wr); err != 0) return err;
  }
  q.qp->post_send(wr);
  return 0;
}

int post_one_recv(Qp& q, const ibv_recv_wr& in) {
  if (in.num_sge < 0 || in.num_sge > 1) return EINVAL;
  if (q.qp->state() == rnic::QpState::reset) return EINVAL;
  const rnic::RecvWr wr{.wr_id = in.wr_id, .sge = sge_of(in.num_sge, in.sg_list)};
  q.qp->post_recv(wr);
  if (q.ud_receives != nullptr) q.ud_receives->push_back(UdReceive{wr.sge.addr, wr.sge.length});
  return 0;
}

// Posts a chain one request at a time; the first one refused is returned in bad_wr.
template <typename Wr, typename PostOne>
int post_chain(ibv_qp* qp, Wr* wr, Wr** bad_wr, PostOne&& post_one) {
  Qp& q = object_of<Qp>(qp);
  NicRuntime& nic = nic_of(qp->context);
  auto held = nic.lock();
  int err = 0;
  for (; wr != nullptr; wr = wr->next) {
    err = errno_result("ibv_post", EINVAL, [&] { return post_one(nic, q, *wr); });
    if (err != 0) {
      *bad_wr = wr;
      break;
    }
  }
  nic.after_post();
  return err;
}

}  // namespace

int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  return post_chain(qp, wr, bad_wr, post_one_send);
}

int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  return post_chain(qp, wr, bad_wr, [](NicRuntime&, Qp& q, const ibv_recv_wr& one) {
    return post_one_recv(q, one);
  });
}

}  // namespace bifrost::verbs
