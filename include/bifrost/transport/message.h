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

// Where a one-sided WRITE or READ goes in the peer's memory: an address inside a region the
// peer registered with remote_write (WRITE) or remote_read (READ), and that region's rkey. The
// peer hands it to the application, for example in a message.
struct RemoteAddress {
  uint64_t addr = 0;
  uint32_t rkey = 0;
};

// delivered: the peer has the message / the one-sided operation is done (a WRITE's bytes are
// in the peer's memory, a READ's in ours). failed: the connection gave up. remote_access_error:
// the peer's memory does not grant a one-sided operation its range.
enum class SendStatus : uint8_t { delivered, failed, remote_access_error };

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
using RttObserver = InplaceFunction<void(Time sample), 32>;
// Per software ACK (A.4, Fig. 16): the receiver's ACK delay T3' - T2 it reports, and the local
// delay from the ACK's receive completion T4 (NIC clock) to the sender processing it.
using AckDelayObserver = InplaceFunction<void(Time ack_delay, Time local_delay), 32>;

}  // namespace bifrost::transport
