#pragma once
// FaSR's state on a NicPair side, for the end-to-end FaSR tests: the NIC's shared pool and a
// QP's sender.
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/recovery/fasr_requester.h"
#include "data_path_support.h"

namespace bifrost::rnic::testing {

inline const recovery::FasrPool& pool_of(const NicPair::Side& side) {
  return dynamic_cast<const recovery::FasrEngine&>(side.device->recovery_engine()).pool();
}

// The FaSR sender of the side's own QP.
inline const recovery::FasrRequester& sender_of(const NicPair::Side& side) {
  return dynamic_cast<const recovery::FasrRequester&>(side.qp->requester()->recovery_state());
}

}  // namespace bifrost::rnic::testing
