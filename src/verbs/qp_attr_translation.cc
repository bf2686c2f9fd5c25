#include "qp_attr_translation.h"

#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/real/gid_table.h"

namespace bifrost::verbs {

namespace {

using rnic::QpAttrMask;
using rnic::QpState;

QpState state_of(ibv_qp_state s) {
  switch (s) {
    case IBV_QPS_RESET:
      return QpState::reset;
    case IBV_QPS_INIT:
      return QpState::init;
    case IBV_QPS_RTR:
      return QpState::rtr;
    case IBV_QPS_RTS:
      return QpState::rts;
    case IBV_QPS_SQD:
      return QpState::sqd;
    case IBV_QPS_ERR:
      return QpState::err;
    default:
      throw Error("QP state {} is not supported", static_cast<int>(s));
  }
}

uint32_t mtu_bytes(ibv_mtu mtu) {
  if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
    throw Error("path MTU {} is not valid", static_cast<int>(mtu));
  return 128u << mtu;
}

ibv_mtu mtu_enum(uint32_t bytes) {
  int e = IBV_MTU_256;
  while ((128u << e) < bytes && e < IBV_MTU_4096) ++e;
  return static_cast<ibv_mtu>(e);
}

}  // namespace

world::Ipv4 ah_destination(const ibv_ah_attr& attr) {
  if (!attr.is_global) {
    throw Error(
        "the address has no GRH: RoCE v2 routes by GID (use a GID index, e.g. -g 0 or -x 0)");
  }
  real::Gid gid;
  std::memcpy(gid.data(), attr.grh.dgid.raw, gid.size());
  const auto ip = real::ipv4_of_gid(gid);
  if (!ip) throw Error("destination GID is not an IPv4-mapped address");
  return *ip;
}

ibv_qp_state ibv_state_of(QpState s) {
  switch (s) {
    case QpState::reset:
      return IBV_QPS_RESET;
    case QpState::init:
      return IBV_QPS_INIT;
    case QpState::rtr:
      return IBV_QPS_RTR;
    case QpState::rts:
      return IBV_QPS_RTS;
    case QpState::sqd:
      return IBV_QPS_SQD;
    case QpState::err:
      return IBV_QPS_ERR;
  }
  return IBV_QPS_ERR;
}

TranslatedAttr translate_qp_attr(const ibv_qp_attr& a, int mask, uint16_t udp_sport) {
  TranslatedAttr t;
  auto set = [&](int bit, QpAttrMask ours, auto&& apply) {
    if ((mask & bit) == 0) return;
    apply();
    t.mask = t.mask | ours;
  };
  if ((mask & IBV_QP_ALT_PATH) != 0) throw Error("alternate paths are not supported");
  set(IBV_QP_STATE, QpAttrMask::state, [&] { t.attr.state = state_of(a.qp_state); });
  set(IBV_QP_PKEY_INDEX, QpAttrMask::pkey_index, [&] { t.attr.pkey_index = a.pkey_index; });
  set(IBV_QP_PORT, QpAttrMask::port, [&] { t.attr.port = a.port_num; });
  set(IBV_QP_QKEY, QpAttrMask::qkey, [&] { t.attr.qkey = a.qkey; });
  set(IBV_QP_ACCESS_FLAGS, QpAttrMask::access_flags, [&] {
    // A QP grants only remote rights; local write, which applications often pass too, means
    // nothing here (as in rdma-core's providers).
    t.attr.access_flags = static_cast<rnic::Access>(
        a.qp_access_flags &
        (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC));
  });
  set(IBV_QP_AV, QpAttrMask::av, [&] {
    t.attr.av.dest_ip = ah_destination(a.ah_attr);
    t.attr.av.sgid_index = a.ah_attr.grh.sgid_index;
    t.attr.av.traffic_class = a.ah_attr.grh.traffic_class;
  });
  set(IBV_QP_PATH_MTU, QpAttrMask::path_mtu, [&] { t.attr.path_mtu = mtu_bytes(a.path_mtu); });
  set(IBV_QP_DEST_QPN, QpAttrMask::dest_qp_num, [&] { t.attr.dest_qp_num = a.dest_qp_num; });
  set(IBV_QP_RQ_PSN, QpAttrMask::rq_psn, [&] { t.attr.rq_psn = a.rq_psn; });
  set(IBV_QP_SQ_PSN, QpAttrMask::sq_psn, [&] { t.attr.sq_psn = a.sq_psn; });
  set(IBV_QP_TIMEOUT, QpAttrMask::timeout, [&] { t.attr.timeout = a.timeout; });
  set(IBV_QP_RETRY_CNT, QpAttrMask::retry_cnt, [&] { t.attr.retry_cnt = a.retry_cnt; });
  set(IBV_QP_RNR_RETRY, QpAttrMask::rnr_retry, [&] { t.attr.rnr_retry = a.rnr_retry; });
  set(IBV_QP_MIN_RNR_TIMER, QpAttrMask::min_rnr_timer,
      [&] { t.attr.min_rnr_timer = a.min_rnr_timer; });
  set(IBV_QP_MAX_QP_RD_ATOMIC, QpAttrMask::max_rd_atomic,
      [&] { t.attr.max_rd_atomic = a.max_rd_atomic; });
  set(IBV_QP_MAX_DEST_RD_ATOMIC, QpAttrMask::max_dest_rd_atomic,
      [&] { t.attr.max_dest_rd_atomic = a.max_dest_rd_atomic; });
  // The configured UDP source port rides along where the soft RNIC lets it change.
  if (udp_sport != 0 && (mask & IBV_QP_STATE) != 0 && a.qp_state == IBV_QPS_RTS) {
    t.attr.udp_sport = udp_sport;
    t.mask = t.mask | QpAttrMask::udp_sport;
  }
  return t;
}

void describe_qp_attr(const rnic::QpAttr& a, ibv_qp_attr& out) {
  std::memset(&out, 0, sizeof out);
  out.qp_state = ibv_state_of(a.state);
  out.cur_qp_state = out.qp_state;
  out.path_mtu = mtu_enum(a.path_mtu);
  out.qkey = a.qkey;
  out.rq_psn = a.rq_psn;
  out.sq_psn = a.sq_psn;
  out.dest_qp_num = a.dest_qp_num;
  out.qp_access_flags = static_cast<unsigned int>(a.access_flags);
  out.ah_attr.is_global = 1;
  out.ah_attr.port_num = a.port;
  const real::Gid dgid = real::ipv4_mapped_gid(a.av.dest_ip);
  std::memcpy(out.ah_attr.grh.dgid.raw, dgid.data(), dgid.size());
  out.ah_attr.grh.sgid_index = a.av.sgid_index;
  out.ah_attr.grh.traffic_class = a.av.traffic_class;
  out.ah_attr.grh.hop_limit = 64;
  out.pkey_index = a.pkey_index;
  out.max_rd_atomic = a.max_rd_atomic;
  out.max_dest_rd_atomic = a.max_dest_rd_atomic;
  out.min_rnr_timer = a.min_rnr_timer;
  out.port_num = a.port;
  out.timeout = a.timeout;
  out.retry_cnt = a.retry_cnt;
  out.rnr_retry = a.rnr_retry;
}

}  // namespace bifrost::verbs
