#pragma once
// The incoming half of a connection: keeps receives posted on every data QP, reads SEND
// headers and WRITE immediates, drops what it already has (exactly-once), places
// retransmitted pieces, delivers complete messages, grants buffers for large ones, checks and
// tracks the peer's one-sided operations and, in software_uc mode, acknowledges every WQE in
// coalesced software ACKs.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "arena.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/transport/connection.h"
#include "bifrost/transport/reliability/ack_builder.h"
#include "bifrost/transport/reliability/sequence_set.h"
#include "bifrost/transport/wire/send_header.h"
#include "bifrost/transport/wire/write_imm.h"
#include "slot_pool.h"

namespace bifrost::transport {

class Sender;

class Receiver {
 public:
  Receiver(Connection& connection, Endpoint& endpoint, const TransportConfig& config,
           Sender& sender);
  ~Receiver();

  // Posts every receive slot on every data QP; call once the QPs are connected.
  void start();
  // Posts every receive slot of one QP (a reconnect's fresh QP, once connected).
  void post_receives(size_t qp_index);
  void on_completion(const rnic::WorkCompletion& wc);
  void set_handler(DeliveryHandler handler) { handler_ = std::move(handler); }
  // The peer changed our ACK coalescing (a remote parameter): used from the next received WQE
  // on; an ACK timer already running keeps its deadline.
  void set_ack_coalescing(AckCoalescing coalescing, Time timer);

  bool idle() const { return acks_.empty() && writes_.empty(); }
  const ReceiverStats& stats() const { return stats_; }

 private:
  struct InWrite {
    uint64_t addr = 0;
    uint64_t length = 0;
    bool granted = false;
    bool one_sided = false;              // the peer's WRITE into our memory: nothing to deliver
    rnic::HostMemory* memory = nullptr;  // where pieces go: the arena or the target region
    std::vector<bool> have;              // per unit
    uint32_t received = 0;
    uint32_t contiguous = 0;  // units from the first that all arrived (the cumulative ACK)
  };
  // What the last WRITE chunk was, to notice one that skips ahead (a loss).
  struct WritePosition {
    uint64_t seq = 0;
    uint32_t end_unit = 0;
    bool complete = true;  // the message's last unit was reached
  };

  void on_send(const rnic::WorkCompletion& wc, uint64_t slot_addr);
  void on_write(const rnic::WorkCompletion& wc);
  // A software ACK that came as a SEND on the data QP (AckPath::data_qp).
  void on_ack_send(const rnic::WorkCompletion& wc, uint64_t slot_addr);
  void on_request(uint64_t seq, uint32_t length);
  // One-sided operations (receiver_one_sided.cc); `trailer` is what follows the header.
  void on_notice(const SendHeader& header, uint64_t seq, uint64_t trailer_addr, uint32_t length);
  void on_read_request(const SendHeader& header, uint64_t trailer_addr, uint32_t length);
  // The peer's rkey grants `wanted` on [addr, + length) of our memory; the region, if so.
  const rnic::MemoryRegion* granted_region(uint32_t rkey, uint64_t addr, uint64_t length,
                                           rnic::Access wanted) const;
  void on_piece(const SendHeader& header, uint64_t seq, uint64_t data_addr, uint32_t length);
  void mark_units(uint64_t seq, InWrite& w, uint32_t first, uint32_t count);
  void deliver(const rnic::HostMemory& memory, uint64_t addr, uint64_t length, bool by_write);
  void grant(uint64_t seq, InWrite& w);
  void grant_waiting();
  // `wc` is the WQE's receive completion: its size, NIC timestamp and CE mark.
  void acknowledge(const AckedWqe& wqe, const rnic::WorkCompletion& wc, bool hint,
                   bool out_of_order);
  void send_ack(AckTrigger trigger);
  // Fills the ACK's cumulative part: the SEND floor and the first WRITE unit not yet here.
  void set_cumulative(SoftAck& ack) const;
  void repost(uint64_t slot);
  uint64_t slot_address(uint64_t slot) const { return slot_memory_->base() + slot * slot_bytes_; }

  Connection& connection_;
  Endpoint& endpoint_;
  TransportConfig config_;
  Sender& sender_;
  WriteImmCodec imm_;
  DeliveryHandler handler_;
  std::unique_ptr<rnic::HostMemory> slot_memory_;
  const rnic::MemoryRegion* slot_region_ = nullptr;
  uint32_t slot_bytes_;  // receive_slots slots per data QP: QP i owns [i * n, (i + 1) * n)
  std::unique_ptr<rnic::HostMemory> arena_memory_;
  const rnic::MemoryRegion* arena_region_ = nullptr;
  Arena arena_;

  SequenceSet sends_seen_;   // SEND reliable numbers accepted
  SequenceSet writes_done_;  // WRITE reliable numbers (large messages) delivered
  std::unordered_map<uint64_t, InWrite> writes_;
  std::deque<uint64_t> waiting_for_arena_;
  uint64_t next_send_number_ = 0;  // the next in-order SEND reliable number
  std::optional<WritePosition> last_write_;
  uint64_t highest_global_ = 0;
  AckBuilder acks_;
  world::TimerId ack_timer_;
  ReceiverStats stats_;
};

}  // namespace bifrost::transport
