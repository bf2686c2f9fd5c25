// Queue pairs: create, modify (RESET -> INIT -> RTR -> RTS and the rest of the state machine,
// checked by the soft RNIC), query and destroy.
#include <cstdlib>
#include <cstring>

#include "application_memory.h"
#include "bifrost/core/error.h"
#include "device_limits.h"
#include "guard.h"
#include "nic_runtime.h"
#include "objects.h"
#include "qp_attr_translation.h"

using namespace bifrost;
using namespace bifrost::verbs;

namespace {

rnic::QpType qp_type_of(ibv_qp_type type) {
  switch (type) {
    case IBV_QPT_RC:
      return rnic::QpType::rc;
    case IBV_QPT_UC:
      return rnic::QpType::uc;
    case IBV_QPT_UD:
      return rnic::QpType::ud;
    default:
      throw Error("QP type {} is not supported (RC, UC and UD are)", static_cast<int>(type));
  }
}

void check_caps(const NicRuntime& nic, const ibv_qp_cap& cap) {
  const auto& path = const_cast<NicRuntime&>(nic).device().data_path();
  if (cap.max_send_wr > path.max_send_wr || cap.max_recv_wr > path.max_recv_wr) {
    throw Error("at most {} send and {} receive work requests per QP", path.max_send_wr,
                path.max_recv_wr);
  }
  if (cap.max_send_sge > 1 || cap.max_recv_sge > 1) {
    throw Error("one scatter/gather element per work request (max_sge 1)");
  }
  if (cap.max_inline_data > kMaxInlineData) {
    throw Error("at most {} bytes of inline data", kMaxInlineData);
  }
}

// The registered ring inline sends copy their bytes into.
void make_inline_ring(NicRuntime& nic, Qp& q, rnic::ProtectionDomain pd) {
  if (q.cap.max_inline_data == 0) return;
  q.inline_slots = 2 * std::max<uint32_t>(q.cap.max_send_wr, 1);
  const size_t bytes = size_t{q.inline_slots} * q.cap.max_inline_data;
  q.inline_ring = static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) & ~size_t{63}));
  if (q.inline_ring == nullptr) throw std::bad_alloc();
  const auto base = reinterpret_cast<uint64_t>(q.inline_ring);
  q.inline_memory = new ApplicationMemory(q.inline_ring, base, bytes);
  q.inline_lkey =
      nic.device().reg_mr(pd, base, bytes, rnic::Access::local_write, q.inline_memory).lkey;
}

void free_qp(NicRuntime& nic, Qp* q) {
  if (q->inline_memory != nullptr) {
    nic.device().dereg_mr(q->inline_lkey);
    delete q->inline_memory;
  }
  std::free(q->inline_ring);
  delete q->ud_receives;
  pthread_mutex_destroy(&q->ibv.mutex);
  pthread_cond_destroy(&q->ibv.cond);
  delete q;
}

}  // namespace

BIFROST_VERBS_API ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* init) {
  return pointer_result("ibv_create_qp", EINVAL, [&]() -> ibv_qp* {
    if (init->srq != nullptr) {
      errno = EOPNOTSUPP;
      log(LogLevel::warn, "ibv_create_qp: shared receive queues are not supported");
      return nullptr;
    }
    const rnic::QpType type = qp_type_of(init->qp_type);
    Context& context = object_of<Context>(pd->context);
    NicRuntime& nic = *context.nic;
    auto held = nic.lock();
    check_caps(nic, init->cap);
    auto* q = new Qp{};
    q->cap = init->cap;
    q->cap.max_send_sge = std::max<uint32_t>(q->cap.max_send_sge, 1);
    q->cap.max_recv_sge = std::max<uint32_t>(q->cap.max_recv_sge, 1);
    q->sq_sig_all = init->sq_sig_all != 0;
    try {
      make_inline_ring(nic, *q, object_of<Pd>(pd).pd);
      q->qp = &nic.device().create_qp(object_of<Pd>(pd).pd, type, *object_of<Cq>(init->send_cq).cq,
                                      *object_of<Cq>(init->recv_cq).cq);
    } catch (...) {
      free_qp(nic, q);
      throw;
    }
    if (type == rnic::QpType::ud) q->ud_receives = new std::deque<UdReceive>();
    q->ibv.context = pd->context;
    q->ibv.qp_context = init->qp_context;
    q->ibv.pd = pd;
    q->ibv.send_cq = init->send_cq;
    q->ibv.recv_cq = init->recv_cq;
    q->ibv.handle = q->qp->qp_num();
    q->ibv.qp_num = q->qp->qp_num();
    q->ibv.state = IBV_QPS_RESET;
    q->ibv.qp_type = init->qp_type;
    pthread_mutex_init(&q->ibv.mutex, nullptr);
    pthread_cond_init(&q->ibv.cond, nullptr);
    (*context.qps)[q->ibv.qp_num] = q;
    init->cap = q->cap;
    return &q->ibv;
  });
}

BIFROST_VERBS_API int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) {
  return errno_result("ibv_modify_qp", EINVAL, [&] {
    Qp& q = object_of<Qp>(qp);
    NicRuntime& nic = nic_of(qp->context);
    auto held = nic.lock();
    const TranslatedAttr t = translate_qp_attr(*attr, mask, nic.config().udp_sport);
    q.qp->modify(t.attr, t.mask);
    qp->state = ibv_state_of(q.qp->state());
    if (q.qp->state() == rnic::QpState::reset && q.ud_receives != nullptr) q.ud_receives->clear();
    nic.after_post();  // a move to ERR flushes, and may have completions to push
    return 0;
  });
}

BIFROST_VERBS_API int ibv_query_qp(ibv_qp* qp, ibv_qp_attr* attr, int /*mask: all is filled*/,
                                   ibv_qp_init_attr* init) {
  Qp& q = object_of<Qp>(qp);
  auto held = nic_of(qp->context).lock();
  describe_qp_attr(q.qp->query(), *attr);
  attr->cap = q.cap;
  std::memset(init, 0, sizeof *init);
  init->qp_context = qp->qp_context;
  init->send_cq = qp->send_cq;
  init->recv_cq = qp->recv_cq;
  init->cap = q.cap;
  init->qp_type = qp->qp_type;
  init->sq_sig_all = q.sq_sig_all ? 1 : 0;
  return 0;
}

BIFROST_VERBS_API int ibv_destroy_qp(ibv_qp* qp) {
  return errno_result("ibv_destroy_qp", EINVAL, [&] {
    Qp& q = object_of<Qp>(qp);
    Context& context = object_of<Context>(qp->context);
    NicRuntime& nic = *context.nic;
    auto held = nic.lock();
    nic.after_post();  // packets still in the port may borrow the QP's inline ring
    nic.device().destroy_qp(qp->qp_num);
    context.qps->erase(qp->qp_num);
    free_qp(nic, &q);
    return 0;
  });
}
