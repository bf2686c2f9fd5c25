#pragma once
// The test loops over a Bifröst transport (--transport bifrost-uc|bifrost-rc): every iteration
// is one Connection::send of -s bytes. write_bw / send_bw keep up to -t messages per connection
// in flight; send_lat sends one message at a time on connection 0 and the server echoes it.
//
// With --verify, message k of connection c carries k in its first 8 bytes and pattern
// message_seed(c, k) after them, so the receiver (which sees deliveries in any order) can check
// every one of them and that it arrived exactly once.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "results.h"
#include "runner.h"

namespace bifrost::perf {

// Verified here: the echoes.
ClientOutcome run_message_client(Session& session, uint32_t size);

// The server of one size: installs delivery handlers on construction, serves until the client
// speaks on the control connection, then settle() waits until every connection is idle.
class MessageServer final : public Runner {
 public:
  MessageServer(Session& s, uint32_t size);
  ~MessageServer() override;
  void settle();
  PeerStats stats() const;

 private:
  void on_delivery(size_t c, const transport::Delivery& d);
  void post_more() override;
  bool done() const override;
  uint64_t progress_bytes() const override { return received_ * size_; }
  uint64_t retransmissions() const override;
  std::string stall_details() const override;

  struct Echo {
    size_t connection;
    uint64_t slot;
  };
  std::vector<std::vector<uint64_t>> free_slots_;  // per connection, for echoes
  std::vector<Echo> echoes_;
  uint64_t received_ = 0;
};

// Verified content: message k carries k in its first kIndexBytes bytes and pattern `seed` from
// pattern offset kIndexBytes after them.
inline constexpr uint64_t kIndexBytes = 8;
void fill_indexed(std::span<std::byte> bytes, uint64_t k, uint32_t seed);
// The message index a verified message names (its first 8 bytes).
uint64_t index_of(std::span<const std::byte> bytes);
// The bytes of a delivery, valid during the delivery callback (copied into `scratch` only if
// they are not one run of real bytes).
std::span<const std::byte> delivered_bytes(const transport::Delivery& d,
                                           std::vector<std::byte>& scratch);
// Where each connection stands, for a stall report: stats and the role and state of each QP.
std::string describe_connections(Session& session);
// Retransmitted WQEs of every connection.
uint64_t sum_retransmitted(Session& session);

// Sum of the transport counters of every connection, for reports.
nlohmann::json transport_counters(Session& session);

// Waits (running the loop) until every connection of the session is idle; throws Error after
// the session's timeout.
void settle_connections(Session& session);

}  // namespace bifrost::perf
