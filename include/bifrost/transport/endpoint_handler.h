#pragma once
// What a protocol registers with an Endpoint to share its CQs and its UD QP: Bifröst's
// Connection is one, RoGUE's connection another. The endpoint routes the data completions of a
// registered QP to its handler, and a UD message to the handler whose id its first four bytes
// name (every protocol's UD messages start with the receiver's id for the connection, as
// software ACKs and control messages do). The handler checks the source and decodes.
#include <cstdint>
#include <span>

#include "bifrost/core/time.h"
#include "bifrost/rnic/completion_queue.h"
#include "bifrost/world/address.h"

namespace bifrost::transport {

// Where a UD message came from.
struct UdSource {
  world::Ipv4 ip;
  uint32_t qp_num = 0;
};

// What became of a UD message: used, or not routable (its source is not the peer, or it does
// not decode), counted by the endpoint in its ACK or control statistics.
enum class UdVerdict : uint8_t { accepted, unroutable_ack, unroutable_control };

class EndpointHandler {
 public:
  virtual ~EndpointHandler() = default;
  // Completions of the handler's registered QPs: sends (and READs) and receives.
  virtual void on_send_completion(const rnic::WorkCompletion& wc) = 0;
  virtual void on_receive_completion(const rnic::WorkCompletion& wc) = 0;
  // A UD message naming this handler's id, received at NIC time `nic_time`.
  virtual UdVerdict on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                                  Time nic_time) = 0;
};

}  // namespace bifrost::transport
