// RpcChannel: requests and responses as Connection messages behind a 16-byte header.
#include "bifrost/transport/rpc.h"

#include <algorithm>
#include <array>
#include <limits>

#include "arena.h"
#include "bifrost/core/error.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/wire/byte_order.h"

namespace bifrost::transport {

using namespace wire::detail;

namespace {

constexpr uint64_t kStagingAlignment = 64;

struct RpcHeader {
  uint8_t kind = 0;
  uint8_t status = 0;
  uint64_t id = 0;
};

void encode(const RpcHeader& h, std::byte* p) {
  store_be16(p, kRpcMagic);
  store_u8(p + 2, h.kind);
  store_u8(p + 3, h.status);
  store_be32(p + 4, 0);
  store_be64(p + 8, h.id);
}

// False for anything that is not an RPC header: another magic, an unknown kind or status, a
// status in a request, reserved bits set.
bool decode(const std::byte* p, RpcHeader& h) {
  h.kind = u8(p + 2);
  h.status = u8(p + 3);
  h.id = load_be64(p + 8);
  const bool request = h.kind == 1;
  const bool response =
      h.kind == 2 && h.status <= static_cast<uint8_t>(RpcStatus::response_too_large);
  return load_be16(p) == kRpcMagic && load_be32(p + 4) == 0 &&
         ((request && h.status == 0) || response);
}

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
  Endpoint& endpoint = connection.endpoint();
  staging_memory_ = endpoint.make_memory(config_.staging_bytes);
  staging_region_ =
      &endpoint.device().reg_mr(endpoint.pd(), staging_memory_->base(), staging_memory_->size(),
                                rnic::Access::local_write, staging_memory_.get());
  staging_ =
      std::make_unique<Arena>(staging_memory_->base(), config_.staging_bytes, kStagingAlignment);
  header_.length = kRpcHeaderBytes;
  header_.bytes.resize(kRpcHeaderBytes);
  connection_.set_delivery_handler([this](const Delivery& d) { on_delivery(d); });
}

RpcChannel::~RpcChannel() {
  connection_.set_delivery_handler({});
  connection_.endpoint().device().dereg_mr(staging_region_->lkey);
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
  return requests_.empty() && responses_.empty() && outstanding_.empty() && in_staging_ == 0;
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
  while (!responses_.empty() && post(Kind::response, responses_.front())) responses_.pop_front();
  while (!requests_.empty() && outstanding_.size() < config_.depth &&
         post(Kind::request, requests_.front())) {
    requests_.pop_front();
  }
}

void RpcChannel::fail_queued() {
  stats_.responses_failed += responses_.size();
  responses_.clear();
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

bool RpcChannel::post(Kind kind, Outgoing& message) {
  const uint64_t length = kRpcHeaderBytes + message.body.length;
  const std::optional<uint64_t> addr = staging_->allocate(length);
  if (!addr) {
    if (!message.waited) ++stats_.staging_waits;
    message.waited = true;
    return false;
  }
  encode(RpcHeader{.kind = static_cast<uint8_t>(kind),
                   .status = static_cast<uint8_t>(message.status),
                   .id = message.id},
         header_.bytes.data());
  staging_memory_->write(*addr, header_);
  if (message.body.length > 0) staging_memory_->write(*addr + kRpcHeaderBytes, message.body);
  recycle(std::move(message.body));
  ++in_staging_;
  const uint64_t id = message.id;
  if (kind == Kind::request) {
    outstanding_.emplace(
        id, Outstanding{std::move(message.done), connection_.endpoint().scheduler().now()});
    ++stats_.requests_issued;
    stats_.max_outstanding = std::max(stats_.max_outstanding, outstanding());
  }
  connection_.send(MessageBuffer{staging_region_, *addr, length},
                   [this, kind, id, at = *addr, length](const SendCompletion& sent) {
                     staging_->free(at, length);
                     --in_staging_;
                     if (sent.status != SendStatus::delivered) {
                       connection_failed_ = true;  // a sender fails messages only for good
                       if (kind == Kind::request) {
                         complete(id, RpcStatus::failed, Delivery{});
                       } else {
                         ++stats_.responses_failed;
                       }
                     }
                     pump();
                   });
  return true;
}

// ---- receiving ---------------------------------------------------------------------------

void RpcChannel::on_delivery(const Delivery& d) {
  std::array<std::byte, kRpcHeaderBytes> bytes{};
  RpcHeader h;
  if (d.length < kRpcHeaderBytes) {
    ++stats_.malformed;
    return;
  }
  d.memory->copy_out(d.addr, bytes);
  if (!decode(bytes.data(), h)) {
    ++stats_.malformed;
    return;
  }
  const Delivery body{.memory = d.memory,
                      .addr = d.addr + kRpcHeaderBytes,
                      .length = d.length - kRpcHeaderBytes,
                      .by_write = d.by_write};
  if (h.kind == static_cast<uint8_t>(Kind::request)) {
    on_request(h.id, body);
  } else {
    on_response(h.id, static_cast<RpcStatus>(h.status), body);
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
