#pragma once
// One control loop's view of a NIC (one per thread): it owns the UD QP on which software ACKs
// and control messages travel (with its own CQ, polled before the data CQ, at a high priority
// class), the shared data CQ, and the connections. Everything runs from the world's scheduler:
// a completion schedules one poll, which drains the ACK CQ first and then the data CQ. No locks.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/rnic/device.h"
#include "bifrost/transport/config.h"
#include "bifrost/transport/connection.h"
#include "bifrost/transport/endpoint_handler.h"
#include "bifrost/transport/rtt/clock_sync.h"
#include "bifrost/transport/wire/control_message.h"
#include "bifrost/transport/wire/soft_ack.h"

namespace bifrost::transport {

// Where the transport keeps message bytes: content descriptors (the simulator: gigabytes cost
// nothing and integrity is still checked) or real bytes (the real runtime).
enum class MemoryKind : uint8_t { tokens, bytes };

struct EndpointConfig {
  MemoryKind memory = MemoryKind::tokens;
  uint8_t gid_index = 0;
  uint32_t qkey = 0x0B1F'0057;
  // DSCP << 2. ACKs go in a strictly higher class than data at the NIC (and in switches that
  // map classes to priorities), so queued data does not delay them (A.4).
  uint8_t ack_traffic_class = 48 << 2;
  uint8_t data_traffic_class = 0;
  uint32_t ack_receive_slots = 4096;
  uint32_t ack_send_slots = 1024;
  size_t cq_entries = 1 << 20;
  uint64_t seed = 1;  // first PSNs and UDP source ports
  // The modelled host CPU time to process one completion (0: every completion is handled the
  // instant the NIC writes it). With a cost the endpoint takes one completion at a time, the
  // ACK CQ first (A.4), so a completion waits behind those ahead of it in its CQ: an ACK SENT on
  // the data QP waits behind the data QP's send completions (§3.4.3's head-of-line blocking).
  Time completion_cost{};
};

// Everything a peer needs to connect to one side of a connection: exchanged out of band by
// the bootstrap in the real world, directly by the caller in simulation.
struct ConnectionOffer {
  world::Ipv4 ip;
  uint32_t ud_qpn = 0;
  uint32_t qkey = 0;
  uint32_t connection_id = 0;  // what the peer's ACKs must carry
  Reliability reliability = Reliability::software_uc;
  uint32_t mtu = 4096;
  struct Qp {
    uint32_t qpn = 0;
    uint32_t first_psn = 0;
  };
  std::vector<Qp> qps;  // primary first, then backups
  // Per QP (same order), the address it sends from and receives on and its GID index at the
  // offering side: a multi-path connection's QPs use several (Virtuoso). Empty: every QP is
  // at `ip`.
  struct QpAddress {
    world::Ipv4 ip;
    uint8_t gid_index = 0;
  };
  std::vector<QpAddress> qp_addresses;
};

struct EndpointStats {
  uint64_t polls = 0;
  uint64_t acks_unroutable = 0;      // ACKs naming no live connection, or malformed
  uint64_t controls_unroutable = 0;  // control messages naming no connection, or malformed
  uint64_t ack_slots_exhausted = 0;  // ACKs and control messages not sent: no free UD buffer
  // Receive completions (ACKs, control messages, SENDs, WRITE_WITH_IMM arrivals) and how long
  // each waited from its CQE timestamp until the endpoint handled it (A.4's "local delay"; 0
  // unless EndpointConfig::completion_cost is set).
  uint64_t receive_completions = 0;
  Time receive_wait_total;
  Time receive_wait_max;
};

class Endpoint {
 public:
  Endpoint(rnic::Device& device, EndpointConfig config = {});
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // A connection with its QPs created (primary + backups) and its memory registered; connect
  // it with the peer's offer. Throws Error for an invalid config.
  Connection& create_connection(const TransportConfig& config);
  // Another protocol's connection (endpoint_handler.h): returns the id its peer's UD messages
  // must name; remove_handler stops the routing (the handler's destructor calls it). Ids are
  // shared with Bifröst's connections and never reused.
  uint32_t add_handler(EndpointHandler& handler);
  void remove_handler(uint32_t id);
  ConnectionOffer offer(const Connection& connection) const;
  // Throws Error if the offer does not match the connection (reliability, QP count, MTU).
  void connect(Connection& connection, const ConnectionOffer& peer);

  rnic::Device& device() { return device_; }
  world::Scheduler& scheduler() { return device_.scheduler(); }
  const EndpointConfig& config() const { return config_; }
  const EndpointStats& stats() const { return stats_; }
  ClockSync& clock() { return clock_; }
  const rnic::ProtectionDomain& pd() const { return pd_; }
  world::Ipv4 ip() const { return device_.gid(config_.gid_index); }
  uint32_t ud_qpn() const { return ud_qp_->qp_num(); }
  rnic::CompletionQueue& data_cq() { return *data_cq_; }

  // For connections: posts a software ACK to the peer's UD QP. Returns false (and counts it) if
  // every ACK buffer is still in use; the ACK is then lost like a dropped packet.
  bool post_ack(const ConnectionOffer& peer, const SoftAck& ack);
  // The same for a control message.
  bool post_control(const ConnectionOffer& peer, const ControlMessage& message);
  // The same for a protocol's own UD message (at most 200 bytes; it starts with the peer's id
  // for the connection, as every UD message does).
  bool post_ud_message(const ConnectionOffer& peer, std::span<const std::byte> message);
  // Routes the data completions of a QP to its handler; forget_qp stops that once the QP is
  // destroyed.
  void register_qp(uint32_t qp_num, EndpointHandler& handler) { by_qpn_[qp_num] = &handler; }
  void forget_qp(uint32_t qp_num) { by_qpn_.erase(qp_num); }
  // Connects `path`'s QP to the peer's QP `peer.qps[index]` (RTS, the path's GID index or the
  // endpoint's, the peer QP's address or the offer's, the data traffic class, remote WRITE and
  // READ allowed), at the smaller of the two MTUs.
  void connect_path(const Path& path, const ConnectionOffer& peer, size_t index, uint32_t mtu,
                    uint8_t rc_timeout, uint8_t rc_retry_cnt) const;
  // A new random 24-bit first PSN / a UDP source port from the endpoint's stream.
  uint32_t fresh_psn();
  uint16_t fresh_source_port();
  // Transport memory of the endpoint's kind in a fresh address range.
  std::unique_ptr<rnic::HostMemory> make_memory(uint64_t size);

 private:
  void schedule_poll();
  void poll();
  void on_ack_completion(const rnic::WorkCompletion& wc);
  // A received UD message (ACK or control) from `wc`'s source: to its connection, if the
  // source is that connection's peer.
  void dispatch_ud(const rnic::WorkCompletion& wc, std::span<const std::byte> bytes);
  // Posts `length` bytes that `encode` writes into a free UD send buffer to the peer's UD QP.
  template <typename Encode>
  bool post_ud(const ConnectionOffer& peer, Encode&& encode);
  void on_data_completion(const rnic::WorkCompletion& wc);
  void repost_ack_receive(uint64_t slot);

  rnic::Device& device_;
  EndpointConfig config_;
  RandomStream random_;
  rnic::ProtectionDomain pd_;
  rnic::CompletionQueue* ack_cq_ = nullptr;
  rnic::CompletionQueue* data_cq_ = nullptr;
  rnic::QueuePair* ud_qp_ = nullptr;
  std::unique_ptr<rnic::HostMemory> ack_memory_;
  const rnic::MemoryRegion* ack_region_ = nullptr;
  std::vector<uint32_t> free_ack_send_slots_;
  ClockSync clock_;
  bool poll_scheduled_ = false;
  // EndpointConfig::completion_cost: handles the next completion, busy for its cost.
  void poll_one();
  void note_wait(const rnic::WorkCompletion& wc);
  uint64_t next_memory_base_ = 0x2000'0000'0000;
  std::vector<std::unique_ptr<Connection>> connections_;  // Bifröst's, owned here
  std::vector<EndpointHandler*> handlers_;                // index = id - 1; null: removed
  std::unordered_map<uint32_t, EndpointHandler*> by_qpn_;
  EndpointStats stats_;
};

}  // namespace bifrost::transport
