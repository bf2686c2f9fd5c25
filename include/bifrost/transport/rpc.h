#pragma once
// Request/response over one Bifröst connection, with an I/O depth: the pattern of the paper's
// RPC workloads (Fig. 4, 7, 8, 9). Requests and responses are ordinary Connection messages
// both ways, each starting with a 16-byte RPC header that carries the request id; the
// transport gives no order between messages, so a response is matched to its request by id.
//
//   RpcChannel client(connection_a), server(connection_b);
//   server.serve([](const RpcRequest& r) { return MessageBuffer{...}; });
//   client.call(MessageBuffer{...}, [](const RpcResponse& r) { /* r.status, r.body */ });
//
// Either side may call and serve at once. The channel owns the connection's delivery handler
// and copies every request and response, behind its header, into staging memory of the
// endpoint's kind (tokens in simulation, bytes in the real runtime) registered on the device.
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bifrost/core/inplace_function.h"
#include "bifrost/core/time.h"
#include "bifrost/transport/connection.h"
#include "bifrost/transport/message.h"
#include "bifrost/world/packet.h"

namespace bifrost::transport {

class Arena;

// The RPC header in front of every request and response body, in network byte order:
// magic 0x4252 ("BR") (2) | kind (1: 1 request, 2 response) | status (1, responses; 0 in a
// request) | reserved, zero (4) | request id (8).
inline constexpr uint64_t kRpcHeaderBytes = 16;
inline constexpr uint16_t kRpcMagic = 0x4252;

enum class RpcStatus : uint8_t {
  ok = 0,
  no_handler = 1,          // the peer has no handler (serve() was never called)
  response_too_large = 2,  // the handler's response does not fit one message
  failed = 3,              // local only: the connection gave up on the request (every QP failed)
};
std::string_view to_string(RpcStatus status);

struct RpcConfig {
  // Requests outstanding at once (issued, response not yet back); more wait in a queue.
  uint32_t depth = 8;
  // Where requests and responses wait, with their header, until the connection has sent them
  // (the NIC reads large messages in place). A message that does not fit now waits.
  uint64_t staging_bytes = 16 * 1024 * 1024;
};

// A request as the server's handler sees it: the body's bytes (after the header) are valid
// during the handler only.
struct RpcRequest {
  uint64_t id = 0;
  Delivery body;
};
// Produces the response to a request; the channel copies its bytes before it returns, so the
// buffer may be reused at once. An empty buffer (length 0) is an empty response.
using RpcHandler = InplaceFunction<MessageBuffer(const RpcRequest&), 48>;

// A response as the client's callback sees it: the body's bytes are valid during the callback
// only, and empty unless status is ok.
struct RpcResponse {
  uint64_t id = 0;  // what call() returned
  RpcStatus status = RpcStatus::ok;
  Delivery body;
  Time issued;     // when the request went to the connection (after waiting for the depth)
  Time completed;  // when the response arrived
};
using RpcCallback = InplaceFunction<void(const RpcResponse&), 48>;

struct RpcStats {
  // Client side.
  uint64_t calls = 0;              // call()s accepted
  uint64_t requests_issued = 0;    // handed to the connection
  uint64_t responses = 0;          // callbacks run with a response from the peer
  uint64_t requests_failed = 0;    // callbacks run with RpcStatus::failed
  uint64_t error_responses = 0;    // responses whose status is not ok
  uint64_t unknown_responses = 0;  // responses naming no outstanding request: dropped
  uint32_t max_outstanding = 0;    // the most requests outstanding at once (<= depth)
  uint64_t staging_waits = 0;      // times a request or response waited for staging space
  // Server side.
  uint64_t requests_served = 0;   // requests answered (also without a handler)
  uint64_t responses_failed = 0;  // responses the connection gave up on
  uint64_t malformed = 0;         // deliveries without a valid RPC header: dropped
};

class RpcChannel {
 public:
  // Takes over the connection's delivery handler. Throws Error for a depth of 0 or a staging
  // area smaller than one header.
  explicit RpcChannel(Connection& connection, RpcConfig config = {});
  // Destroy only when idle(): in-flight messages read the staging memory.
  ~RpcChannel();
  RpcChannel(const RpcChannel&) = delete;
  RpcChannel& operator=(const RpcChannel&) = delete;

  // Queues a request; `done` runs exactly once with its response, or with RpcStatus::failed
  // if the connection gives up (at once, inside call(), if it already has). The
  // request's bytes are copied now: the buffer may be reused when call() returns. Returns the
  // request id. Throws Error for a request above max_body_bytes() or outside its region.
  uint64_t call(const MessageBuffer& request, RpcCallback done);
  // Answers every request that arrives from now on; replaces a previous handler.
  void serve(RpcHandler handler);

  // The largest request or response body: the connection's largest message (or the staging
  // area, if smaller) less the header.
  uint64_t max_body_bytes() const { return max_body_; }
  uint32_t outstanding() const { return static_cast<uint32_t>(outstanding_.size()); }
  size_t queued() const { return requests_.size(); }
  // Nothing queued, outstanding or in staging, in either role.
  bool idle() const;
  const RpcStats& stats() const { return stats_; }
  Connection& connection() { return connection_; }

 private:
  enum class Kind : uint8_t { request = 1, response = 2 };
  // A request or response waiting for the depth or for staging space: its body copied into
  // a payload (a token in simulation, bytes in the real runtime).
  struct Outgoing {
    uint64_t id = 0;
    RpcStatus status = RpcStatus::ok;
    world::Payload body;
    RpcCallback done;     // requests
    bool waited = false;  // counted once in staging_waits
  };
  struct Outstanding {
    RpcCallback done;
    Time issued;
  };

  void on_delivery(const Delivery& d);
  void on_request(uint64_t id, const Delivery& body);
  void on_response(uint64_t id, RpcStatus status, const Delivery& body);
  // Hands queued responses, then queued requests within the depth, to the connection.
  void pump();
  // The connection gave up (no QP left, none reconnecting): what is queued fails at once.
  void fail_queued();
  // Copies header + body into staging and sends it; false if staging has no room now.
  bool post(Kind kind, Outgoing& message);
  // Runs an outstanding request's callback (once: nothing if it was answered already).
  void complete(uint64_t id, RpcStatus status, const Delivery& body);
  // A payload with the content of `buffer` (empty for length 0), from the pool.
  world::Payload copy_body(const MessageBuffer& buffer);
  void recycle(world::Payload&& payload);

  Connection& connection_;
  RpcConfig config_;
  uint64_t max_body_;
  std::unique_ptr<rnic::HostMemory> staging_memory_;
  const rnic::MemoryRegion* staging_region_ = nullptr;
  std::unique_ptr<Arena> staging_;
  uint64_t in_staging_ = 0;
  RpcHandler handler_;
  std::deque<Outgoing> requests_;   // waiting for the depth or staging
  std::deque<Outgoing> responses_;  // waiting for staging
  std::unordered_map<uint64_t, Outstanding> outstanding_;
  std::vector<world::Payload> spare_payloads_;  // keep their capacity (real bytes)
  world::Payload header_;
  uint64_t next_id_ = 1;
  bool connection_failed_ = false;
  RpcStats stats_;
};

}  // namespace bifrost::transport
