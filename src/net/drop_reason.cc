#include "bifrost/net/drop_reason.h"

#include <numeric>

namespace bifrost::net {

std::string_view drop_reason_name(DropReason reason) {
  switch (reason) {
    case DropReason::kNoBuffer:
      return "no_buffer";
    case DropReason::kDynamicThreshold:
      return "dynamic_threshold";
    case DropReason::kHeadroomExceeded:
      return "headroom_exceeded";
    case DropReason::kLinkDown:
      return "link_down";
    case DropReason::kNoRoute:
      return "no_route";
    case DropReason::kScripted:
      return "scripted";
    case DropReason::kRandomLoss:
      return "random_loss";
    case DropReason::kLostInFlight:
      return "lost_in_flight";
    case DropReason::kCount:
      break;
  }
  return "unknown";
}

uint64_t DropCounters::total_packets() const {
  return std::accumulate(packets.begin(), packets.end(), uint64_t{0});
}

uint64_t DropCounters::total_bytes() const {
  return std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
}

}  // namespace bifrost::net
