#pragma once
// ibv_qp_attr + IBV_QP_* mask <-> the soft RNIC's QpAttr + QpAttrMask.
#include <infiniband/verbs.h>

#include "bifrost/rnic/queue_pair.h"

namespace bifrost::verbs {

struct TranslatedAttr {
  rnic::QpAttr attr;
  rnic::QpAttrMask mask = rnic::QpAttrMask::none;
};

// Throws Error naming what the soft RNIC cannot do (an alternate path, an address without a
// GRH or with a GID that is not IPv4-mapped). Ignored, as they change nothing here:
// IBV_QP_CUR_STATE, IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_PATH_MIG_STATE, IBV_QP_CAP.
TranslatedAttr translate_qp_attr(const ibv_qp_attr& attr, int mask, uint16_t udp_sport);

// The QP's attributes as ibv_query_qp reports them.
void describe_qp_attr(const rnic::QpAttr& attr, ibv_qp_attr& out);

ibv_qp_state ibv_state_of(rnic::QpState state);

// Where an address vector points: RoCE v2 needs a GRH whose dgid is IPv4-mapped; throws Error
// naming what is missing otherwise.
world::Ipv4 ah_destination(const ibv_ah_attr& attr);

}  // namespace bifrost::verbs
