#pragma once
// One Bifröst connection: a message channel in both directions over a set of QPs of one mode
// (config.h). Small messages go by SEND; a large one first asks the receiver for a buffer (a
// write_request SEND answered by a write_grant SEND: one extra round trip, which is why small
// messages do not wait for it) and then goes as WRITE_WITH_IMM chunks straight into it.
//
// In software_uc mode the connection is reliable by itself: every WQE has a global number, the
// receiver acknowledges WQEs in coalesced software ACKs on the endpoint's UD QP, and lost
// WQEs are sent again (a SEND as itself, a WRITE chunk as unit-sized SEND pieces). Every
// message is delivered exactly once; there is no ordering between messages.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/transport/config.h"
#include "bifrost/transport/message.h"
#include "bifrost/transport/rtt/rtt_estimator.h"
#include "bifrost/transport/stats.h"
#include "bifrost/transport/wire/soft_ack.h"

namespace bifrost::transport {

class Endpoint;
struct ConnectionOffer;
class Sender;
class Receiver;

// A connection's QPs and what each is for. Several may be active at once later (shadow QPs,
// one per path); Bifröst uses one primary and pre-connected backups.
enum class QpRole : uint8_t { primary, backup, failed };

struct ConnectionQp {
  rnic::QueuePair* qp = nullptr;
  QpRole role = QpRole::backup;
  uint32_t first_psn = 0;
  uint16_t source_port = 0;
};

class Connection {
 public:
  Connection(Endpoint& endpoint, uint32_t id, const TransportConfig& config);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Queues a message; `done` runs once the receiver has it. Returns the message's number (its
  // SendCompletion carries it). Throws Error for an empty or oversized message, or a buffer
  // outside its region.
  uint64_t send(const MessageBuffer& message, SendCallback done = {});
  void set_delivery_handler(DeliveryHandler handler);

  uint32_t id() const { return id_; }
  const TransportConfig& config() const { return config_; }
  bool connected() const { return peer_ != nullptr; }
  // Nothing queued, in flight or waiting for acknowledgement, in either direction.
  bool idle() const;
  const SenderStats& sender_stats() const;
  const ReceiverStats& receiver_stats() const;
  uint64_t window_bytes() const;
  const RttEstimator& rtt() const;
  const std::vector<ConnectionQp>& qps() const { return qps_; }

  // Called by the endpoint.
  void attach_peer(const ConnectionOffer& peer);
  void on_send_completion(const rnic::WorkCompletion& wc);
  void on_receive_completion(const rnic::WorkCompletion& wc);
  void on_ack(const SoftAck& ack, Time ack_received_nic_time);
  const ConnectionOffer& peer() const { return *peer_; }
  Endpoint& endpoint() { return endpoint_; }
  rnic::QueuePair& primary();
  // Makes the next backup QP the primary (A.3); false if there is none.
  bool fail_over();

 private:
  void create_qps();

  Endpoint& endpoint_;
  uint32_t id_;
  TransportConfig config_;
  std::vector<ConnectionQp> qps_;
  std::unique_ptr<ConnectionOffer> peer_;
  std::unique_ptr<Sender> sender_;
  std::unique_ptr<Receiver> receiver_;
};

}  // namespace bifrost::transport
