#pragma once
// The downstream halves of flow control a buffering node (a switch, a SWING relay) keeps, one
// per ingress port: installing one applies its limits to the node's buffer, and admissions and
// departures of the priorities it watches are passed on with the port's usage.
#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/net/shared_buffer.h"

namespace bifrost::net {

class IngressControls {
 public:
  explicit IngressControls(uint32_t ports) : controls_(ports), watched_(ports, 0) {}

  // Applies `control`'s limits for every priority of `port` (nullptr: none) and attaches it.
  // Throws Error if the buffer cannot hold the headroom it asks for.
  void install(SharedBuffer& buffer, uint32_t port, std::unique_ptr<IngressFlowControl> control);
  IngressFlowControl* at(uint32_t port) const { return controls_[port].get(); }

  // A frame of `priority` from `port` entered / left `buffer`.
  void admitted(const SharedBuffer& buffer, uint32_t port, int priority) const {
    if ((watched_[port] >> priority) & 1) {
      controls_[port]->on_admitted(priority, buffer.ingress_usage(port, priority));
    }
  }
  void released(const SharedBuffer& buffer, uint32_t port, int priority) const {
    if ((watched_[port] >> priority) & 1) {
      controls_[port]->on_released(priority, buffer.ingress_usage(port, priority));
    }
  }

 private:
  std::vector<std::unique_ptr<IngressFlowControl>> controls_;
  std::vector<uint8_t> watched_;  // per port: IngressFlowControl::watched_priorities()
};

}  // namespace bifrost::net
