#include "bifrost/core/error.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/flowctl/swing_config.h"

namespace bifrost::net {

Bytes swing_relay_buffer(const SwingLinkParams& link) {
  if (link.jitter < Time::zero() || link.max_frame_bytes == 0) {
    throw Error("SWING sizing needs a positive frame size and a non-negative jitter");
  }
  return pfc_headroom_bound({.rate = link.rate,
                             .propagation = link.propagation + link.jitter,
                             .ingress_latency = link.relay_latency,
                             .max_frame_bytes = link.max_frame_bytes,
                             .max_reverse_frame_bytes = link.max_frame_bytes,
                             .overhead_bytes = link.overhead_bytes});
}

}  // namespace bifrost::net
