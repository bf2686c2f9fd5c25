#pragma once
// One flow for carrier tests that add flows by hand.
#include <cstdint>

#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim::testing {

inline workload::Flow make_flow(uint64_t id, uint32_t src, uint32_t dst, uint64_t bytes,
                                Time start = Time::zero(),
                                workload::FlowOp op = workload::FlowOp::write) {
  workload::Flow f;
  f.id = id;
  f.src = src;
  f.dst = dst;
  f.size = Bytes(bytes);
  f.start = start;
  f.op = op;
  return f;
}

}  // namespace bifrost::sim::testing
