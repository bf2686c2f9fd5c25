#pragma once
// Why a frame was dropped, and counters by reason. Every drop anywhere in the network has
// exactly one reason, so bytes sent = bytes delivered + bytes dropped can be checked.
#include <array>
#include <cstdint>
#include <string_view>

namespace bifrost::net {

enum class DropReason : uint8_t {
  kNoBuffer,          // the shared pool (static partition: the queue's share) had no room
  kDynamicThreshold,  // the queue was over alpha x free shared bytes
  kHeadroomExceeded,  // a lossless priority overflowed its PFC headroom (lossless violated)
  kLinkDown,          // routed to, or transmitted on, a failed link
  kNoRoute,           // no route for the destination address
  kScripted,          // a test or experiment asked for this drop
  kRandomLoss,        // the link's random loss rate
  kLostInFlight,      // on the wire when the link failed
  kCount,
};

inline constexpr std::size_t kDropReasonCount = static_cast<std::size_t>(DropReason::kCount);

// Lower-case name such as "dynamic_threshold", for tables and CSV headers.
std::string_view drop_reason_name(DropReason reason);

struct DropCounters {
  std::array<uint64_t, kDropReasonCount> packets{};
  std::array<uint64_t, kDropReasonCount> bytes{};

  void add(DropReason reason, uint64_t frame_bytes) {
    ++packets[static_cast<std::size_t>(reason)];
    bytes[static_cast<std::size_t>(reason)] += frame_bytes;
  }
  uint64_t operator[](DropReason reason) const { return packets[static_cast<std::size_t>(reason)]; }
  uint64_t total_packets() const;
  uint64_t total_bytes() const;
};

}  // namespace bifrost::net
