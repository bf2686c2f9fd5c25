#include "bifrost/transport/retired_qps.h"

#include "bifrost/transport/endpoint.h"

namespace bifrost::transport {

void RetiredQps::retire(Endpoint& endpoint, rnic::QueuePair& qp) {
  if (qp.state() != rnic::QpState::err) {
    rnic::QpAttr attr;
    attr.state = rnic::QpState::err;
    qp.modify(attr, rnic::QpAttrMask::state);
  }
  retired_.push_back(&qp);
  if (retired_.size() > keep_) {
    const uint32_t qpn = retired_.front()->qp_num();
    endpoint.forget_qp(qpn);
    endpoint.device().destroy_qp(qpn);
    retired_.pop_front();
  }
}

}  // namespace bifrost::transport
