#include "bifrost/net/flowctl/flow_control.h"

#include <cmath>

#include "bifrost/core/error.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {

Threshold Threshold::fixed(Bytes bytes) {
  Threshold t;
  t.bytes_ = bytes;
  return t;
}

Threshold Threshold::dynamic(double alpha) {
  if (!std::isfinite(alpha) || alpha <= 0) {
    throw Error("a dynamic threshold needs a finite alpha > 0, got {}", alpha);
  }
  Threshold t;
  t.dynamic_ = true;
  t.alpha_ = alpha;
  return t;
}

void EgressGate::open(int priority) {
  const auto bit = static_cast<uint8_t>(1u << priority);
  if ((closed_mask_ & bit) == 0) return;
  closed_mask_ &= static_cast<uint8_t>(~bit);
  if (port_ != nullptr) port_->wake();
}

}  // namespace bifrost::net
