#pragma once
// rpc_bw over a Bifröst transport: one transport::RpcChannel per connection. The client keeps
// --depth requests of -s bytes outstanding per connection (the channel's depth is the same, so
// nothing waits in its queue); the server answers each with --response_size bytes. Requests/s
// come from responses; the RPC round trip (request handed to the connection to response
// delivered) gives the latency columns.
//
// With --verify, request k of connection c carries k and pattern message_seed(c, k), its
// response k and pattern response_seed(c, k): each side checks what it gets, the server also
// that no request arrives twice.
#include <memory>
#include <vector>

#include "bifrost/transport/rpc.h"
#include "results.h"
#include "runner.h"

namespace bifrost::perf {

// Verified here: the responses.
ClientOutcome run_rpc_client(Session& session, uint32_t size);

// The server of one size: channels serving from construction until the client speaks on the
// control connection; settle() then waits until every connection and channel is idle.
class RpcServer final : public Runner {
 public:
  RpcServer(Session& s, uint32_t size);
  void settle();
  PeerStats stats() const;

 private:
  transport::MessageBuffer respond(size_t c, const transport::RpcRequest& r);
  void post_more() override {}
  bool done() const override;
  uint64_t progress_bytes() const override { return served_ * size_; }
  uint64_t retransmissions() const override;
  std::string stall_details() const override;

  std::vector<std::unique_ptr<transport::RpcChannel>> channels_;
  std::vector<std::vector<uint8_t>> seen_;  // per connection, by request index
  std::vector<std::byte> scratch_;
  uint64_t served_ = 0;
};

// A channel config for -s/--response_size/--depth: staging for two windows of the larger.
transport::RpcConfig rpc_config(const Options& o);
// The pattern seed of the response to request k of connection c.
uint32_t response_seed(size_t c, uint64_t k);

}  // namespace bifrost::perf
