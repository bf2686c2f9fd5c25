#include "bifrost/rnic/connect.h"

namespace bifrost::rnic {

void connect_qp(QueuePair& qp, const QpConnection& c) {
  using M = QpAttrMask;
  const QpType type = qp.type();
  QpAttr attr;
  attr.state = QpState::init;
  attr.qkey = c.qkey;
  attr.access_flags = c.access;
  qp.modify(attr,
            M::state | M::pkey_index | M::port | (type == QpType::ud ? M::qkey : M::access_flags));

  attr.state = QpState::rtr;
  M mask = M::state;
  if (type != QpType::ud) {
    attr.av.dest_ip = c.dest_ip;
    attr.av.sgid_index = c.sgid_index;
    attr.av.traffic_class = c.traffic_class;
    attr.path_mtu = c.path_mtu;
    attr.dest_qp_num = c.dest_qp_num;
    attr.rq_psn = c.rq_psn;
    mask = mask | M::av | M::path_mtu | M::dest_qp_num | M::rq_psn;
    if (type == QpType::rc) {
      attr.max_dest_rd_atomic = c.max_rd_atomic;
      attr.min_rnr_timer = c.min_rnr_timer;
      mask = mask | M::max_dest_rd_atomic | M::min_rnr_timer;
    }
  }
  if (c.udp_sport != 0) {
    attr.udp_sport = c.udp_sport;
    mask = mask | M::udp_sport;
  }
  qp.modify(attr, mask);

  attr.state = QpState::rts;
  attr.sq_psn = c.sq_psn;
  mask = M::state | M::sq_psn;
  if (type == QpType::rc) {
    attr.timeout = c.timeout;
    attr.retry_cnt = c.retry_cnt;
    attr.rnr_retry = c.rnr_retry;
    attr.max_rd_atomic = c.max_rd_atomic;
    mask = mask | M::timeout | M::retry_cnt | M::rnr_retry | M::max_rd_atomic;
  }
  qp.modify(attr, mask);
}

}  // namespace bifrost::rnic
