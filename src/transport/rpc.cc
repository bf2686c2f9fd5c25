// RpcChannel: requests and responses as Connection messages behind a 16-byte header.
#include "bifrost/transport/rpc.h"

#include <algorithm>
#include <array>
#include <limits>

#include "arena.h"
#include "bifrost/core/error.h"
#include "bifrost/transport/endpoint.h"

namespace bifrost::transport {

namespace {

constexpr uint64_t kStagingAlignment = 64;

}  // namespace

std::string_view to_string(RpcStatus status) {
  switch (status) {
    case RpcStatus::ok:
      return "ok";
    case RpcStatus::no_handler:
      return "no_handler (the peer serves no requests)";
    case RpcStatus::response_too_large:
      return "response_too_large (the peer's response does not fit one message)";
    case RpcStatus::failed:
      return "failed (the connection gave up on the request)";
    case RpcStatus::request_unreadable:
      return "request_unreadable (the server's READ of the request was refused)";
  }
  return "unknown";
}

RpcChannel::RpcChannel(Connection& connection, RpcConfig config)
    : connection_(connection), config_(config) {
  if (config_.depth == 0) throw Error("RpcChannel: the I/O depth must be at least 1");
  if (config_.staging_bytes <= kRpcHeaderBytes) {
    throw Error("RpcChannel: staging_bytes {} cannot hold a {}-byte RPC header",
                config_.staging_bytes, kRpcHeaderBytes);
  }
  // HostMemory reads at most 2^32 - 1 bytes at once.
  max_body_ = std::min({connection.config().max_message_size(), config_.staging_bytes,
                        uint64_t{std::numeric_limits<uint32_t>::max()}}) -
              kRpcHeaderBytes;
  staging_ = open_area(rnic::Access::local_write);
  header_.bytes.reserve(kRpcHeaderBytes + kRpcReadDescriptorBytes);
  connection_.set_delivery_handler([this](const Delivery& d) { on_delivery(d); });
}

RpcChannel::~RpcChannel() {
  connection_.set_delivery_handler({});
  close_area(staging_);
  close_area(read_source_);
  close_area(landing_);
}

RpcChannel::Area RpcChannel::open_area(rnic::Access access) const {
  Endpoint& endpoint = connection_.endpoint();
  Area area;
  area.memory = endpoint.make_memory(config_.staging_bytes);
  area.region = &endpoint.device().reg_mr(endpoint.pd(), area.memory->base(), area.memory->size(),
                                          access, area.memory.get());
  area.arena =
      std::make_unique<Arena>(area.memory->base(), config_.staging_bytes, kStagingAlignment);
  return area;
}

void RpcChannel::close_area(Area& area) {
  if (area.region != nullptr) connection_.endpoint().device().dereg_mr(area.region->lkey);
  area.region = nullptr;
}

uint64_t RpcChannel::call(const MessageBuffer& request, RpcCallback done) {
  if (request.length > max_body_) {
    throw Error(
        "RpcChannel::call: a request body is at most {} bytes (the largest message less the "
        "{}-byte RPC header), not {}",
        max_body_, kRpcHeaderBytes, request.length);
  }
  Outgoing o;
  o.id = next_id_++;
  o.body = copy_body(request);
  o.done = std::move(done);
  const uint64_t id = o.id;
  requests_.push_back(std::move(o));
  ++stats_.calls;
  pump();
  return id;
}

void RpcChannel::serve(RpcHandler handler) {
  handler_ = std::move(handler);
}

bool RpcChannel::idle() const {
  return requests_.empty() && responses_.empty() && outstanding_.empty() && in_staging_ == 0 &&
         reads_.empty() && reads_in_flight_ == 0;
}

world::Payload RpcChannel::copy_body(const MessageBuffer& buffer) {
  world::Payload p;
  if (!spare_payloads_.empty()) {
    p = std::move(spare_payloads_.back());
    spare_payloads_.pop_back();
  }
  p.length = 0;
  p.token = 0;
  p.bytes.clear();
  if (buffer.length == 0) return p;
  const rnic::MemoryRegion* region = buffer.region;
  if (region == nullptr || region->memory == nullptr) {
    throw Error("RpcChannel: a request or response needs a registered region with memory");
  }
  const bool inside = buffer.addr >= region->base && buffer.length <= region->length &&
                      buffer.addr - region->base <= region->length - buffer.length;
  if (!inside) {
    throw Error("RpcChannel: [{:#x}, +{}) is outside its region [{:#x}, +{})", buffer.addr,
                buffer.length, region->base, region->length);
  }
  region->memory->read(buffer.addr, static_cast<uint32_t>(buffer.length), p);
  return p;
}

void RpcChannel::recycle(world::Payload&& payload) {
  if (payload.bytes.capacity() > 0) spare_payloads_.push_back(std::move(payload));
}

// ---- sending -----------------------------------------------------------------------------

void RpcChannel::pump() {
  // A connection that gave up (it failed a message, or has no QP left and none coming back)
  // completes nothing sent to it any more: fail here instead.
  if (connection_failed_ ||
      (connection_.connected() && !connection_.has_primary() && !connection_.reconnecting())) {
    fail_queued();
    return;
  }
  // Responses first: each one frees a slot of the peer's depth.
  while (!responses_.empty() && post(RpcKind::response, responses_.front())) {
    responses_.pop_front();
  }
  start_reads();
  while (!requests_.empty() && outstanding_.size() < config_.depth) {
    Outgoing& next = requests_.front();
    const bool by_read = config_.read_threshold > 0 && next.body.length > config_.read_threshold;
    if (!(by_read ? post_read_request(next) : post(RpcKind::request, next))) break;
    requests_.pop_front();
  }
}

void RpcChannel::fail_queued() {
  stats_.responses_failed += responses_.size() + reads_.size();
  responses_.clear();
  reads_.clear();
  // Requests already sent wait for responses that cannot be relied on any more: a late one
  // finds no outstanding request and is dropped, so each callback still runs once.
  std::vector<uint64_t> sent;
  for (const auto& [id, o] : outstanding_) sent.push_back(id);
  for (const uint64_t id : sent) complete(id, RpcStatus::failed, Delivery{});
  while (!requests_.empty()) {
    Outgoing o = std::move(requests_.front());
    requests_.pop_front();
    ++stats_.requests_failed;
    if (o.done) {
      const Time now = connection_.endpoint().scheduler().now();
      o.done(RpcResponse{
          .id = o.id, .status = RpcStatus::failed, .body = {}, .issued = now, .completed = now});
    }
  }
}

bool RpcChannel::post(RpcKind kind, Outgoing& message) {
  const uint64_t length = kRpcHeaderBytes + message.body.length;
  const std::optional<uint64_t> addr = staging_.arena->allocate(length);
  if (!addr) {
    if (!message.waited) ++stats_.staging_waits;
    message.waited = true;
    return false;
  }
  header_.length = kRpcHeaderBytes;
  header_.bytes.resize(kRpcHeaderBytes);  // within its capacity: no allocation
  (void)encode_rpc_header(RpcHeader{.kind = kind, .status = message.status, .id = message.id},
                          header_.bytes);
  staging_.memory->write(*addr, header_);
  if (message.body.length > 0) staging_.memory->write(*addr + kRpcHeaderBytes, message.body);
  recycle(std::move(message.body));
  if (kind == RpcKind::request) {
    outstanding_.emplace(
        message.id, Outstanding{std::move(message.done), connection_.endpoint().scheduler().now()});
    ++stats_.requests_issued;
    stats_.max_outstanding = std::max(stats_.max_outstanding, outstanding());
  }
  send_staged(kind, message.id, *addr, length);
  return true;
}

bool RpcChannel::post_read_request(Outgoing& message) {
  if (read_source_.region == nullptr) read_source_ = open_area(rnic::Access::remote_read);
  const uint64_t body = message.body.length;
  const std::optional<uint64_t> source = read_source_.arena->allocate(body);
  const std::optional<uint64_t> addr =
      source ? staging_.arena->allocate(kRpcHeaderBytes + kRpcReadDescriptorBytes) : std::nullopt;
  if (!addr) {
    if (source) read_source_.arena->free(*source, body);
    if (!message.waited) ++stats_.staging_waits;
    message.waited = true;
    return false;
  }
  read_source_.memory->write(*source, message.body);
  recycle(std::move(message.body));
  header_.length = kRpcHeaderBytes + kRpcReadDescriptorBytes;
  header_.bytes.resize(header_.length);
  const std::span<std::byte> out = header_.bytes;
  (void)encode_rpc_header(RpcHeader{.kind = RpcKind::read_request, .id = message.id}, out);
  (void)encode_rpc_read_descriptor(RpcReadDescriptor{.address = *source,
                                                     .rkey = read_source_.region->rkey,
                                                     .length = static_cast<uint32_t>(body)},
                                   out.subspan(kRpcHeaderBytes));
  staging_.memory->write(*addr, header_);
  outstanding_.emplace(message.id, Outstanding{.done = std::move(message.done),
                                               .issued = connection_.endpoint().scheduler().now(),
                                               .source_addr = *source,
                                               .source_bytes = body});
  ++stats_.requests_issued;
  ++stats_.read_requests;
  stats_.max_outstanding = std::max(stats_.max_outstanding, outstanding());
  send_staged(RpcKind::request, message.id, *addr, header_.length);
  return true;
}

void RpcChannel::send_staged(RpcKind kind, uint64_t id, uint64_t at, uint64_t length) {
  ++in_staging_;
  connection_.send(MessageBuffer{staging_.region, at, length},
                   [this, kind, id, at, length](const SendCompletion& sent) {
                     staging_.arena->free(at, length);
                     --in_staging_;
                     if (sent.status != SendStatus::delivered) {
                       connection_failed_ = true;  // a sender fails messages only for good
                       if (kind == RpcKind::request) {
                         complete(id, RpcStatus::failed, Delivery{});
                       } else {
                         ++stats_.responses_failed;
                       }
                     }
                     pump();
                   });
}

// ---- receiving ---------------------------------------------------------------------------

void RpcChannel::on_delivery(const Delivery& d) {
  std::array<std::byte, kRpcHeaderBytes + kRpcReadDescriptorBytes> bytes{};
  if (d.length < kRpcHeaderBytes) {
    ++stats_.malformed;
    return;
  }
  d.memory->copy_out(d.addr, std::span(bytes).first(kRpcHeaderBytes));
  const auto h = decode_rpc_header(std::span(bytes).first(kRpcHeaderBytes));
  if (!h) {
    ++stats_.malformed;
    return;
  }
  const Delivery body{.memory = d.memory,
                      .addr = d.addr + kRpcHeaderBytes,
                      .length = d.length - kRpcHeaderBytes,
                      .by_write = d.by_write};
  switch (h.value.kind) {
    case RpcKind::request:
      on_request(h.value.id, body);
      break;
    case RpcKind::read_request:
      on_read_request(h.value.id, body);
      break;
    case RpcKind::response:
      on_response(h.value.id, h.value.status, body);
      break;
  }
}

void RpcChannel::on_request(uint64_t id, const Delivery& body) {
  ++stats_.requests_served;
  Outgoing response;
  response.id = id;
  if (!handler_) {
    response.status = RpcStatus::no_handler;
  } else {
    const MessageBuffer produced = handler_(RpcRequest{.id = id, .body = body});
    if (produced.length > max_body_) {
      response.status = RpcStatus::response_too_large;
    } else {
      response.body = copy_body(produced);
    }
  }
  responses_.push_back(std::move(response));
  pump();
}

void RpcChannel::answer(uint64_t id, RpcStatus status) {
  ++stats_.requests_served;
  Outgoing response;
  response.id = id;
  response.status = status;
  responses_.push_back(std::move(response));
  pump();
}

void RpcChannel::on_read_request(uint64_t id, const Delivery& descriptor) {
  std::array<std::byte, kRpcReadDescriptorBytes> bytes{};
  if (descriptor.length != kRpcReadDescriptorBytes) {
    ++stats_.malformed;
    return;
  }
  descriptor.memory->copy_out(descriptor.addr, bytes);
  const auto source = decode_rpc_read_descriptor(bytes);
  if (!source) {
    ++stats_.malformed;
    return;
  }
  // Larger than this side can land: refused like memory the client does not grant.
  if (source.value.length > max_body_) {
    ++stats_.reads_refused;
    answer(id, RpcStatus::request_unreadable);
    return;
  }
  reads_.push_back(PendingRead{.id = id, .source = source.value});
  pump();
}

void RpcChannel::start_reads() {
  while (!reads_.empty() && !connection_failed_) {
    PendingRead& next = reads_.front();
    if (landing_.region == nullptr) {
      // Over UC the client's side writes the bytes back: the landing needs remote_write.
      landing_ = open_area(connection_.config().reliability == Reliability::software_uc
                               ? rnic::Access::local_write | rnic::Access::remote_write
                               : rnic::Access::local_write);
    }
    const std::optional<uint64_t> at = landing_.arena->allocate(next.source.length);
    if (!at) {
      if (!next.waited) ++stats_.read_waits;
      next.waited = true;
      return;
    }
    const PendingRead read = next;
    reads_.pop_front();
    ++reads_in_flight_;
    const uint64_t length = read.source.length;
    connection_.read(MessageBuffer{landing_.region, *at, length},
                     RemoteAddress{.addr = read.source.address, .rkey = read.source.rkey},
                     [this, id = read.id, at = *at, length](const SendCompletion& done) {
                       on_read_done(id, at, length, done.status);
                     });
  }
}

void RpcChannel::on_read_done(uint64_t id, uint64_t at, uint64_t length, SendStatus status) {
  --reads_in_flight_;
  switch (status) {
    case SendStatus::delivered:
      ++stats_.requests_read;
      on_request(
          id, Delivery{
                  .memory = landing_.memory.get(), .addr = at, .length = length, .by_write = true});
      break;
    case SendStatus::remote_access_error:
      ++stats_.reads_refused;
      answer(id, RpcStatus::request_unreadable);
      break;
    case SendStatus::failed:
      connection_failed_ = true;
      ++stats_.responses_failed;
      break;
  }
  // The handler has run (its bytes were valid during it only): the landing is free again.
  landing_.arena->free(at, length);
  pump();
}

void RpcChannel::on_response(uint64_t id, RpcStatus status, const Delivery& body) {
  if (!outstanding_.contains(id)) {
    ++stats_.unknown_responses;
    return;
  }
  complete(id, status, body);
  pump();
}

void RpcChannel::complete(uint64_t id, RpcStatus status, const Delivery& body) {
  const auto it = outstanding_.find(id);
  if (it == outstanding_.end()) return;  // answered already: a late failure of its request
  Outstanding o = std::move(it->second);
  outstanding_.erase(it);
  // The server has read a read request's bytes before it answered (or the connection is gone).
  if (o.source_bytes > 0) read_source_.arena->free(o.source_addr, o.source_bytes);
  if (status == RpcStatus::failed) {
    ++stats_.requests_failed;
  } else {
    ++stats_.responses;
    if (status != RpcStatus::ok) ++stats_.error_responses;
  }
  RpcResponse response{.id = id,
                       .status = status,
                       .body = body,
                       .issued = o.issued,
                       .completed = connection_.endpoint().scheduler().now()};
  if (status != RpcStatus::ok) response.body.length = 0;
  if (o.done) o.done(response);
}

}  // namespace bifrost::transport
