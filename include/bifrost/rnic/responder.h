#pragma once
// The receive half of a queue pair's data path: the receive queue, PSN checking through the
// recovery engine (RC), placement into memory regions after the access checks, receive
// completions in message order, ACK/NAK/SACK/RNR generation and READ responses. UC and UD
// follow their own, simpler rules (no ACKs; UC drops a message whole when a packet is lost).
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/nic_context.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/world/packet.h"

namespace bifrost::rnic {

class QueuePair;

// UD receive buffers begin with room for the 40-byte GRH, as in ibverbs; the payload follows.
inline constexpr uint32_t kGrhBytes = 40;

class Responder {
 public:
  Responder(QueuePair& qp, NicContext& nic);
  ~Responder();
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Queues a receive. Throws Error in RESET, for a full receive queue or a buffer the QP's
  // PD cannot write; in ERR it completes at once with flush_error.
  void post(const RecvWr& wr);
  // A request packet for this QP arrived.
  void receive(const world::Packet& packet);
  // The next READ response packet, if one is due.
  bool produce(world::Packet& out);
  // Extra receive-pipeline time `packet` costs (SRNIC's host-memory bitmap), decided when it
  // enters the pipeline; called once per packet admitted, in arrival order.
  Time pipeline_stall(const world::Packet& packet);

  // The QP entered RTR: the first PSN expected.
  void start(uint32_t rq_psn);
  // The QP entered ERR: every posted receive completes with flush_error.
  void flush();
  // The QP went back to RESET: forgets everything without completions.
  void reset();

  size_t posted() const { return rq_.size(); }
  uint32_t expected_psn() const { return epsn_; }

 private:
  enum class Outcome : uint8_t { ok, rnr, access_error, invalid_request, length_error };
  struct RecvSlot {
    RecvWr wr;
    const MemoryRegion* mr = nullptr;
  };
  // A message whose last packet arrived, completing once every earlier PSN has.
  struct Pending {
    uint32_t last_psn = 0;
    uint32_t ssn = 0;
    uint32_t byte_len = 0;
    std::optional<uint32_t> imm;
    WcOpcode opcode = WcOpcode::recv;
    WcStatus status = WcStatus::success;
  };
  // The message in progress when packets arrive in order without the SR extension.
  struct Message {
    bool active = false;
    uint64_t va = 0;  // WRITE: remote VA of the next byte
    uint32_t rkey = 0;
    uint32_t ssn = 0;
    uint64_t offset = 0;  // bytes of the message placed so far
  };
  struct ReadJob {
    uint32_t psn = 0;
    uint32_t count = 0;
    uint32_t sent = 0;
    uint64_t va = 0;
    uint64_t length = 0;
    const MemoryRegion* mr = nullptr;
    // Set: not a READ but an ACK-class packet queued behind the READs before it, since a
    // responder's responses leave in PSN order (an ACK overtaking READ responses would tell
    // the requester they were lost).
    std::optional<wire::RoceHeaders> ack;
  };

  void receive_rc(const world::Packet& packet);
  void receive_uc(const world::Packet& packet);
  void receive_ud(const world::Packet& packet);
  Outcome execute(const world::Packet& packet, bool selective);
  // NAKs a refused request packet (RC) and, for errors other than RNR, moves the QP to ERR.
  void refuse(Outcome outcome, bool in_order, uint32_t psn);
  Outcome execute_read(const world::Packet& packet);
  Outcome execute_write(const world::Packet& packet, bool selective);
  Outcome execute_send(const world::Packet& packet, bool selective);
  AccessResult check_remote(uint32_t rkey, uint64_t va, uint64_t length, Access wanted) const;
  void place(const MemoryRegion* mr, uint64_t va, const world::Payload& payload);
  RecvSlot* receive_slot(uint32_t ssn);
  void add_pending(const Pending& pending);
  void complete_pending();
  void complete_receive(const Pending& pending, uint32_t src_qp = 0, world::Ipv4 src_ip = {});
  // `sacked` makes it a SACK; `sack_info` is the engine's state for its SR extension key.
  void send_ack(wire::Aeth aeth, uint32_t psn, std::optional<uint32_t> sacked = std::nullopt,
                uint32_t sack_info = 0);
  void send_nak(wire::NakCode code, uint32_t psn);
  // An in-order packet was accepted without an ACK: make sure one goes within ack_delay.
  void defer_ack();
  void on_ack_timer();

  QueuePair& qp_;
  NicContext& nic_;
  std::unique_ptr<recovery::ResponderState> engine_;
  // The receive state as of the pipeline's tail (engines that stall the pipeline only).
  std::unique_ptr<recovery::ResponderState> pipeline_view_;
  uint32_t pipeline_epsn_ = 0;
  std::deque<RecvSlot> rq_;
  uint32_t rq_base_ssn_ = 0;  // receive sequence number of rq_.front()
  uint32_t next_ssn_ = 0;     // in-order mode: the next message to take a receive
  std::deque<Pending> pending_;
  std::deque<ReadJob> reads_;
  Message message_;
  uint32_t epsn_ = 0;
  uint32_t msn_ = 0;
  uint32_t since_ack_ = 0;  // in-order packets accepted since the last ACK
  Time unacked_since_;      // when the first of them arrived
  world::TimerId ack_timer_;
  // A CE-marked packet arrived since the last receive completion (WorkCompletion::ecn_ce).
  bool ce_seen_ = false;
};

}  // namespace bifrost::rnic
