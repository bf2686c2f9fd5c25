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
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/transport/config.h"
#include "bifrost/transport/endpoint_handler.h"
#include "bifrost/transport/message.h"
#include "bifrost/transport/path.h"
#include "bifrost/transport/path_resync.h"
#include "bifrost/transport/remote_parameter.h"
#include "bifrost/transport/retired_qps.h"
#include "bifrost/transport/rtt/rtt_estimator.h"
#include "bifrost/transport/stats.h"
#include "bifrost/transport/wire/control_message.h"
#include "bifrost/transport/wire/soft_ack.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::transport {

class Endpoint;
struct ConnectionOffer;
class Sender;
class Receiver;

using ParameterCallback = std::function<void(ParameterStatus)>;

class Connection final : public EndpointHandler, private PathResyncOwner {
 public:
  Connection(Endpoint& endpoint, uint32_t id, const TransportConfig& config);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Queues a message; `done` runs once the receiver has it. Returns the message's number (its
  // SendCompletion carries it). Throws Error for an empty or oversized message, or a buffer
  // outside its region.
  uint64_t send(const MessageBuffer& message, SendCallback done = {});
  // One-sided operations on the peer's memory (docs/transport.md "One-sided WRITE and READ"):
  // write copies `local` to [remote.addr, + local.length) of the peer; read copies that many
  // bytes from the peer's memory at `remote` into `local`. No delivery at the peer. `done`
  // runs once the bytes are in place. The same limits as send (1 byte to the largest message)
  // apply; software_uc reads also need `local` registered with remote_write (the peer writes
  // the data back into it). Throws Error like send.
  uint64_t write(const MessageBuffer& local, RemoteAddress remote, SendCallback done = {});
  uint64_t read(const MessageBuffer& local, RemoteAddress remote, SendCallback done = {});
  void set_delivery_handler(DeliveryHandler handler);
  // Asks the peer to set `parameter` on its side of this connection to `value`
  // (docs/transport.md "Remote parameters"). `done` runs once: applied; refused (the value
  // would make the peer's configuration invalid, so it kept its own); or timed_out (no answer
  // after reconnect_attempts requests, reconnect_interval apart). Requests for one parameter
  // go one at a time in call order, so the last call's value wins; requests for different
  // parameters go at once. Throws Error before the connection is connected.
  void set_remote_parameter(RemoteParameter parameter, uint64_t value, ParameterCallback done = {});
  // Called with every RTT sample the sender takes (for measurements; may be empty).
  void set_rtt_observer(RttObserver observer);
  // Called with every software ACK's delays (for measurements; may be empty).
  void set_ack_delay_observer(AckDelayObserver observer);

  uint32_t id() const { return id_; }
  // The configuration in force on this side, with the parameters the peer set.
  const TransportConfig& config() const { return config_; }
  bool connected() const { return peer_ != nullptr; }
  // Nothing queued, in flight or waiting for acknowledgement, in either direction.
  bool idle() const;
  const SenderStats& sender_stats() const;
  const ReceiverStats& receiver_stats() const;
  uint64_t window_bytes() const;
  // The CC's pacing rate, put on the primary QP's NIC rate limiter; nullopt: not limited.
  std::optional<Rate> pacing_rate() const;
  const RttEstimator& rtt() const;
  // The packet loss rate the sender's chunking sees (chunking/loss_estimate.h).
  double loss_rate_estimate() const;
  const ConnectionStats& stats() const { return stats_; }
  const std::vector<Path>& qps() const { return qps_; }

  // Called by the endpoint.
  void attach_peer(const ConnectionOffer& peer);
  void on_send_completion(const rnic::WorkCompletion& wc) override;
  void on_receive_completion(const rnic::WorkCompletion& wc) override;
  // A software ACK or control message, taken only from the peer's UD QP.
  UdVerdict on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                          Time nic_time) override;
  void on_ack(const SoftAck& ack, Time ack_received_nic_time);
  // A control message from the peer (the endpoint checked its source).
  void on_control(const ControlMessage& message);
  const ConnectionOffer& peer() const { return *peer_; }
  Endpoint& endpoint() { return endpoint_; }
  // The QP new WQEs go on. has_primary() is false while every QP is reconnecting.
  bool has_primary() const;
  rnic::QueuePair& primary();
  bool reconnecting() const;
  // Gives up the primary's path (A.3): the next backup becomes the primary, and the old one is
  // reconnected in the background (or, with reconnect off, marked failed if the NIC put it in
  // error and otherwise left in the rotation). Returns whether a backup took over.
  bool fail_over();
  // When a backup that became the primary is ready to carry WQEs: the device's
  // QpTransitionCosts::activate_ready after the switch (the past if none happened). A
  // reconnected QP pays QpTransitionCosts::recover before it rejoins as a backup or primary.
  Time primary_ready_at() const { return primary_ready_at_; }

 private:
  // A parameter this side asked the peer to set; only the oldest request per parameter is sent.
  struct ParameterRequest {
    RemoteParameter parameter = RemoteParameter::ack_every_wqes;
    uint64_t value = 0;
    ParameterCallback done;
    bool sent = false;
    uint32_t attempts = 0;
    world::TimerId retry{};
  };
  using ParameterRequests = std::map<uint32_t, ParameterRequest>;  // by sequence

  void create_qps();
  Path fresh_qp(PathRole role);
  // Connects QP `index` to the peer's QP `peer.qps[index]`.
  void connect_one(size_t index);
  // Makes the next backup after `index` the primary, ready after the activation cost; false
  // if there is none.
  bool promote_backup_after(size_t index);
  // The fresh QP of path `index` finished its recovery (QpTransitionCosts::recover): it joins
  // as a backup, or as the primary if there is none.
  void on_path_ready(size_t index);
  // Background reconnect (connection_reconnect.cc): the PathResyncOwner side.
  void replace_path(size_t index) override { replace_qp(index, PathRole::reconnecting); }
  uint32_t path_qpn(size_t index) const override { return qps_[index].qp->qp_num(); }
  uint32_t path_psn(size_t index) const override { return qps_[index].first_psn; }
  void bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) override;
  void on_path_taken(size_t index) override;
  void on_resync_end(size_t index, bool ok) override;
  bool post_control(const ControlMessage& message) override;
  uint32_t peer_connection_id() const override;
  // Puts the QP at `index` in error (flushing what it held) and a fresh one, with a new first
  // PSN and UDP source port, in its place.
  void replace_qp(size_t index, PathRole role);
  bool yields_to_peer() const override;
  // Remote parameters (connection_parameters.cc).
  void send_parameter_request(uint32_t sequence);
  // Ends a request of ours: sends the next one queued for its parameter, then runs `done`.
  void finish_parameter_request(ParameterRequests::iterator request, ParameterStatus status);
  void on_parameter_set(const ControlMessage& request);
  void on_parameter_ack(const ControlMessage& ack);
  // Hands a parameter the peer set in config_ to the half that uses it.
  void use_parameter(RemoteParameter parameter);

  Endpoint& endpoint_;
  uint32_t id_;
  TransportConfig config_;
  std::vector<Path> qps_;
  std::vector<world::TimerId> recovering_;  // per path: the end of its QP's recovery
  Time primary_ready_at_;
  RetiredQps retired_;
  ParameterRequests parameter_requests_;
  // Per parameter, the ack of the newest request of the peer's that this side answered: sent
  // again for a repeat of that request, and the bar older (late) requests are ignored under.
  std::map<RemoteParameter, ControlMessage> parameter_answers_;
  ConnectionStats stats_;
  PathResync resync_;  // its sequence numbers are shared with parameter requests
  std::unique_ptr<ConnectionOffer> peer_;
  std::unique_ptr<Sender> sender_;
  std::unique_ptr<Receiver> receiver_;
};

}  // namespace bifrost::transport
