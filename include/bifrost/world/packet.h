#pragma once
// A RoCEv2 packet as it crosses the world boundary: addressing, decoded transport headers and a
// payload. The simulated world moves Packet objects as they are; the real world encodes them to
// UDP datagrams (wire/codec.h) and decodes what arrives.
//
// Payload: `length` is always the payload size. `bytes` holds the real bytes when there are any
// (always in the real world; in simulation only for payloads software reads, such as transport
// headers and control messages). `token` names the content of bulk data in simulation so that
// integrity can be checked without carrying bytes.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bifrost/core/time.h"
#include "bifrost/wire/headers.h"
#include "bifrost/world/address.h"

namespace bifrost::world {

struct Payload {
  uint32_t length = 0;
  uint64_t token = 0;
  std::vector<std::byte> bytes;  // capacity is kept when the packet is recycled
  // Instead of `bytes`: `length` bytes borrowed from host memory, not copied (the real world's
  // transmit path, rnic::DataPathConfig::zero_copy_transmit). Valid until the port has sent
  // the packet; nothing else may keep it.
  std::span<const std::byte> borrowed{};

  // Copies borrowed bytes into `bytes`, for a packet kept past the borrow.
  void own() {
    if (borrowed.empty()) return;
    bytes.assign(borrowed.begin(), borrowed.end());
    borrowed = {};
  }
  // The real bytes, owned or borrowed (empty for a token-only payload).
  std::span<const std::byte> real_bytes() const {
    return borrowed.empty() ? std::span<const std::byte>(bytes) : borrowed;
  }
};

struct Packet {
  Endpoint src;
  Endpoint dst;
  uint8_t dscp = 0;  // 6-bit DSCP; the priority class is derived from it
  uint8_t ecn = 0;   // 2-bit ECN field: 0 not-ECT, 1/2 ECT, 3 CE
  wire::RoceHeaders roce;
  Payload payload;
  // When the packet reached this host, on the receiving world's clock, if the port knows it
  // better than "now" (the real world: the kernel's receive timestamp, which excludes the time
  // the datagram waited in the socket). Zero: unknown. The device stamps the receive
  // completions of the packet with it.
  Time arrival;

  // Restores the default state but keeps the payload buffer's capacity.
  void clear();
};

namespace detail {
struct PacketRecycler {
  void operator()(Packet* p) const noexcept;
};
}  // namespace detail

// Unique ownership of a pooled packet; destroying it returns the packet to its thread's pool.
using PacketPtr = std::unique_ptr<Packet, detail::PacketRecycler>;

// A cleared packet from this thread's pool. After warm-up no call allocates.
PacketPtr make_packet();
// Packets this thread's pool has created so far (in use plus free); for tests and benchmarks.
std::size_t packets_allocated();
// From now on every thread of the process takes packets from, and returns them to, one pool
// that lives until the process ends. For a world that several threads drive under a lock of
// their own (the verbs library: the application's threads and a progress thread), where a
// packet made on one thread is often freed on another, which may exit first. The caller's
// lock must cover every packet operation. Call it before the first packet is made.
void share_packet_pool_between_threads();

}  // namespace bifrost::world
