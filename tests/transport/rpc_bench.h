#pragma once
// A client (side 0) and a server (side 1) RpcChannel on a TransportPair, with a ledger of
// answers: request k carries k in its first 8 bytes and pattern 1 + k after them, its response
// response_size(k) bytes of pattern 100000 + k; each side checks what it gets.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "bifrost/core/rng.h"
#include "bifrost/transport/rpc.h"
#include "transport_pair.h"

namespace bifrost::transport::testing_rpc {

using testing::TransportPair;
using testing::TransportPairConfig;

inline constexpr uint64_t kRequestArea = TransportPair::kAppBase;
inline constexpr uint64_t kResponseArea = TransportPair::kAppBase + (uint64_t{1} << 30);

// Request k carries k in its first 8 bytes and pattern 1 + k after them; its response is
// response_size(k) bytes of pattern 100000 + k.
inline uint32_t request_seed(uint64_t k) {
  return static_cast<uint32_t>(1 + k);
}
inline uint32_t response_seed(uint64_t k) {
  return static_cast<uint32_t>(100000 + k);
}
inline uint64_t response_size(uint64_t k) {
  return k % 5 == 0 ? 40000 + k * 17 : 8 + k % 300;  // some by WRITE, most by SEND
}

// True if [addr, addr + length) of `memory` holds pattern `seed` from pattern offset `offset`.
inline bool holds_pattern(const rnic::HostMemory& memory, uint64_t addr, uint64_t length,
                          uint32_t seed, uint64_t offset) {
  rnic::TokenMemory expected(0, offset + length);
  expected.fill(offset, length, seed, offset);
  return rnic::same_content(memory, addr, expected, offset, length);
}

// One client side (0) and one server side (1) of a TransportPair, with a ledger of answers.
class RpcBench {
 public:
  explicit RpcBench(const TransportPairConfig& c, RpcConfig rpc = {}, RpcConfig server = {})
      : pair_(c),
        client_(*pair_.side(0).connection, rpc),
        server_(*pair_.side(1).connection, server) {
    server_.serve([this](const RpcRequest& r) { return respond(r); });
  }

  // Issues request k of `length` bytes (at least 8).
  uint64_t call(uint64_t length) {
    const uint64_t k = requests_.size();
    TransportPair::Side& a = pair_.side(0);
    a.app->fill(kRequestArea, length, request_seed(k), 0);
    world::Payload tag{.length = 8, .token = 0, .bytes = std::vector<std::byte>(8)};
    std::memcpy(tag.bytes.data(), &k, 8);
    a.app->write(kRequestArea, tag);
    requests_.push_back(Request{.length = length});
    const uint64_t id = client_.call(MessageBuffer{a.app_region, kRequestArea, length},
                                     [this, k](const RpcResponse& r) { on_response(k, r); });
    requests_[k].id = id;
    return id;
  }

  bool run(Time limit) {
    const Time end = pair_.kernel().now() + limit;
    while (!all_answered() && pair_.kernel().now() < end) {
      pair_.kernel().run_until(std::min(end, pair_.kernel().now() + Time::us(100)));
    }
    return all_answered();
  }
  bool all_answered() const { return answered_ == requests_.size(); }

  ::testing::AssertionResult each_answered_once_correctly() const {
    for (size_t k = 0; k < requests_.size(); ++k) {
      const Request& r = requests_[k];
      if (r.answers != 1 || !r.right) {
        return ::testing::AssertionFailure()
               << "request " << k << " (id " << r.id << ", " << r.length << " B) answered "
               << r.answers << " times, right response: " << r.right;
      }
    }
    if (bad_requests_ != 0) {
      return ::testing::AssertionFailure() << bad_requests_ << " requests arrived corrupt";
    }
    return ::testing::AssertionSuccess();
  }

  TransportPair& pair() { return pair_; }
  RpcChannel& client() { return client_; }
  RpcChannel& server() { return server_; }
  // The most requests the server held at once that the client had not been answered for.
  uint64_t max_in_service() const { return max_in_service_; }
  const std::vector<uint64_t>& completion_order() const { return completion_order_; }

 private:
  struct Request {
    uint64_t length = 0;
    uint64_t id = 0;
    uint32_t answers = 0;
    bool right = false;
  };

  MessageBuffer respond(const RpcRequest& r) {
    ++served_;
    max_in_service_ = std::max(max_in_service_, served_ - answered_);
    uint64_t k = UINT64_MAX;
    if (r.body.length >= 8) {
      std::array<std::byte, 8> tag;
      r.body.memory->copy_out(r.body.addr, tag);
      std::memcpy(&k, tag.data(), 8);
    }
    if (k >= requests_.size() || !request_intact(k, r.body)) {
      ++bad_requests_;
      return MessageBuffer{};
    }
    TransportPair::Side& b = pair_.side(1);
    b.app->fill(kResponseArea, response_size(k), response_seed(k), 0);
    return MessageBuffer{b.app_region, kResponseArea, response_size(k)};
  }

  bool request_intact(uint64_t k, const Delivery& body) const {
    const uint64_t length = requests_[k].length;
    return body.length == length &&
           holds_pattern(*body.memory, body.addr + 8, length - 8, request_seed(k), 8);
  }

  void on_response(uint64_t k, const RpcResponse& r) {
    Request& q = requests_[k];
    ++q.answers;
    ++answered_;
    completion_order_.push_back(k);
    if (r.status != RpcStatus::ok || r.id != q.id || r.body.length != response_size(k)) return;
    q.right = holds_pattern(*r.body.memory, r.body.addr, r.body.length, response_seed(k), 0);
  }

  TransportPair pair_;
  RpcChannel client_;
  RpcChannel server_;
  std::vector<Request> requests_;
  uint64_t answered_ = 0;
  uint64_t served_ = 0;
  uint64_t max_in_service_ = 0;
  uint64_t bad_requests_ = 0;
  std::vector<uint64_t> completion_order_;
};

inline TransportPairConfig lossless() {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  return c;
}

inline uint64_t random_request_size(RandomStream& r) {
  return r.bernoulli(0.15) ? r.uniform_int(32 * 1024, 600 * 1024) : r.uniform_int(8, 2000);
}

}  // namespace bifrost::transport::testing_rpc
