#pragma once
// The soft RNIC's completions as ibv_wc.
#include <infiniband/verbs.h>

#include "bifrost/rnic/completion_queue.h"
#include "objects.h"

namespace bifrost::verbs {

// Fills `out` from `wc`. For a UD receive it also writes the 40 bytes of GRH room of the
// receive buffer (`ud`, the QP's oldest posted receive) as RoCE v2 over IPv4 lays them out.
void translate_completion(const rnic::WorkCompletion& wc, const UdReceive* ud, world::Ipv4 local,
                          ibv_wc& out);

}  // namespace bifrost::verbs
