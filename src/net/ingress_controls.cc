#include "bifrost/net/ingress_controls.h"

namespace bifrost::net {

void IngressControls::install(SharedBuffer& buffer, uint32_t port,
                              std::unique_ptr<IngressFlowControl> control) {
  for (int p = 0; p < kPriorities; ++p) {
    buffer.set_ingress_limits(port, p, control ? control->limits(p) : IngressLimits{});
  }
  if (control) control->attach(buffer, port);
  watched_[port] = control ? control->watched_priorities() : 0;
  controls_[port] = std::move(control);
}

}  // namespace bifrost::net
