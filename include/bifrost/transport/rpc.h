#pragma once
// Request/response over one Bifröst connection, with an I/O depth: the pattern of the paper's
// RPC workloads (Fig. 4, 6, 7, 8, 9). Requests and responses are ordinary Connection messages
// both ways, each starting with a 16-byte RPC header that carries the request id; the
// transport gives no order between messages, so a response is matched to its request by id.
// With RpcConfig::read_threshold, a request above it goes as a read request instead: a
// descriptor of where its bytes wait at the client, which the server pulls with a one-sided
// READ (Connection::read) before its handler runs (ARDMA's way for large requests, §4.2.1).
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
#include "bifrost/transport/wire/rpc_header.h"
#include "bifrost/world/packet.h"

namespace bifrost::transport {

class Arena;

// The RPC header, the read descriptor and RpcStatus: transport/wire/rpc_header.h.
std::string_view to_string(RpcStatus status);

struct RpcConfig {
  // Requests outstanding at once (issued, response not yet back); more wait in a queue.
  uint32_t depth = 8;
  // Where requests and responses wait, with their header, until the connection has sent them
  // (the NIC reads large messages in place). A message that does not fit now waits.
  uint64_t staging_bytes = 16 * 1024 * 1024;
  // Request bodies above this many bytes go as read requests: the client keeps the bytes in a
  // region registered with remote_read (staging_bytes more memory) and sends a 16-byte
  // descriptor; the server READs them into landing memory of its own (staging_bytes, made at
  // its first read request), runs its handler, and answers as usual. 0: every request is a
  // message. A server serves read requests whatever its own threshold.
  uint64_t read_threshold = 0;
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
  uint64_t read_requests = 0;      // requests issued as read requests (above read_threshold)
  // Server side.
  uint64_t requests_served = 0;   // requests answered (also without a handler)
  uint64_t responses_failed = 0;  // responses the connection gave up on
  uint64_t malformed = 0;         // deliveries without a valid RPC header: dropped
  uint64_t requests_read = 0;     // request bodies pulled with a READ (read requests served)
  uint64_t read_waits = 0;        // times a read request waited for landing space
  uint64_t reads_refused = 0;     // READs the client's memory refused: request_unreadable
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
  // Memory of the channel's own, registered on the device, handed out by an arena.
  struct Area {
    std::unique_ptr<rnic::HostMemory> memory;
    const rnic::MemoryRegion* region = nullptr;
    std::unique_ptr<Arena> arena;
  };
  // A read request that arrived and waits for landing space.
  struct PendingRead {
    uint64_t id = 0;
    RpcReadDescriptor source;
    bool waited = false;  // counted once in read_waits
  };
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
    uint64_t source_addr = 0;  // a read request's bytes in read_source_ (freed at completion)
    uint64_t source_bytes = 0;
  };

  void on_delivery(const Delivery& d);
  void on_request(uint64_t id, const Delivery& body);
  void on_read_request(uint64_t id, const Delivery& descriptor);
  // Starts the READs of pending read requests while landing space lasts.
  void start_reads();
  void on_read_done(uint64_t id, uint64_t at, uint64_t length, SendStatus status);
  // Queues a response with no body.
  void answer(uint64_t id, RpcStatus status);
  void on_response(uint64_t id, RpcStatus status, const Delivery& body);
  // Hands queued responses, then queued requests within the depth, to the connection.
  void pump();
  // The connection gave up (no QP left, none reconnecting): what is queued fails at once.
  void fail_queued();
  // Copies header + body into staging and sends it; false if staging has no room now.
  bool post(RpcKind kind, Outgoing& message);
  // A request above read_threshold: its body into read_source_, header + descriptor into
  // staging; false if either has no room now.
  bool post_read_request(Outgoing& message);
  // Sends [at, + length) of staging; frees it when the connection is done with it.
  void send_staged(RpcKind kind, uint64_t id, uint64_t at, uint64_t length);
  Area open_area(rnic::Access access) const;
  void close_area(Area& area);
  // Runs an outstanding request's callback (once: nothing if it was answered already).
  void complete(uint64_t id, RpcStatus status, const Delivery& body);
  // A payload with the content of `buffer` (empty for length 0), from the pool.
  world::Payload copy_body(const MessageBuffer& buffer);
  void recycle(world::Payload&& payload);

  Connection& connection_;
  RpcConfig config_;
  uint64_t max_body_;
  Area staging_;
  Area read_source_;  // client: bodies of read requests (remote_read); made at the first one
  Area landing_;      // server: where READs put request bodies; made at the first read request
  uint64_t in_staging_ = 0;
  std::deque<PendingRead> reads_;  // read requests waiting for landing space
  uint32_t reads_in_flight_ = 0;
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
