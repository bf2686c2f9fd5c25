#pragma once
// Equal-sized buffers carved from one registered range, handed out and taken back by index:
// the staging buffers of outgoing SENDs and the receive buffers of a QP.
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/transport/config.h"
#include "bifrost/transport/wire/send_header.h"

namespace bifrost::transport {

// The buffer one SEND of a data QP needs, staged or received: header plus the larger of a
// small message and a retransmitted unit, rounded to a cache line.
inline uint32_t send_slot_bytes(const TransportConfig& c) {
  const uint64_t data = c.send_threshold > c.unit_size ? c.send_threshold : c.unit_size;
  return static_cast<uint32_t>((kSendHeaderSize + data + 63) / 64 * 64);
}

class SlotPool {
 public:
  SlotPool(uint64_t base, uint32_t slot_size, uint32_t count) : base_(base), size_(slot_size) {
    free_.reserve(count);
    for (uint32_t i = count; i-- > 0;) free_.push_back(i);
  }
  std::optional<uint32_t> acquire() {
    if (free_.empty()) return std::nullopt;
    const uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void release(uint32_t slot) { free_.push_back(slot); }
  uint64_t address(uint32_t slot) const { return base_ + uint64_t{slot} * size_; }
  uint32_t slot_size() const { return size_; }
  size_t available() const { return free_.size(); }

 private:
  uint64_t base_;
  uint32_t size_;
  std::vector<uint32_t> free_;
};

}  // namespace bifrost::transport
