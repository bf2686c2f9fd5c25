#pragma once
// What an application hands to a connection and gets back from it.
#include <cstdint>

#include "bifrost/core/inplace_function.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/memory_region.h"

namespace bifrost::transport {

// Application bytes to send: [addr, addr + length) inside a region registered on the device.
// The bytes must stay unchanged until the message's completion callback runs.
struct MessageBuffer {
  const rnic::MemoryRegion* region = nullptr;
  uint64_t addr = 0;
  uint64_t length = 0;
};

enum class SendStatus : uint8_t { delivered, failed };

struct SendCompletion {
  uint64_t message = 0;  // the number send() returned
  SendStatus status = SendStatus::delivered;
  Time posted;
  Time completed;
};
using SendCallback = InplaceFunction<void(const SendCompletion&), 48>;

// A message that arrived. Its bytes are valid during the delivery callback only: the buffer is
// reused when the callback returns (copy what must outlive it).
struct Delivery {
  const rnic::HostMemory* memory = nullptr;
  uint64_t addr = 0;
  uint64_t length = 0;
  bool by_write = false;  // arrived as WRITE chunks (large) rather than one SEND (small)
};
using DeliveryHandler = InplaceFunction<void(const Delivery&), 48>;

}  // namespace bifrost::transport
