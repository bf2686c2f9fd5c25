#pragma once
// The send half of a queue pair's data path: the send queue, PSN assignment, packet production
// (new packets and the recovery engine's retransmissions), ACK/NAK/READ-response handling,
// the retransmission timer and send completions in posting order.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/nic_context.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/world/packet.h"

namespace bifrost::rnic {

class QueuePair;

class Requester {
 public:
  Requester(QueuePair& qp, NicContext& nic);
  ~Requester();
  Requester(const Requester&) = delete;
  Requester& operator=(const Requester&) = delete;

  // Validates and queues `wr`. Throws Error for a QP that cannot send in its state, a full
  // send queue or a request the QP type cannot carry. A bad local buffer is not thrown: like
  // hardware, it completes with local_protection_error and moves the QP to ERR.
  void post(const SendWr& wr);
  // Fills `out` with the next packet to transmit (roce headers and payload; the QP fills the
  // addresses). Returns false if nothing may go now.
  bool produce(world::Packet& out);
  // An ACK, NAK or READ response for this QP arrived.
  void receive(const world::Packet& packet);
  // Extra receive-pipeline time `packet` costs (SRNIC's retransmit-PSN query for a SACK),
  // decided when it enters the pipeline; called once per packet admitted, in arrival order.
  Time pipeline_stall(const world::Packet& packet);
  // The last packet (PSN `psn`) of an outstanding RC request left the NIC at `when` (see
  // NicContext::note_last_packet).
  void departed(uint32_t psn, Time when);

  // The QP entered RTS from RTR: the first PSN to send.
  void start(uint32_t sq_psn);
  // The QP entered ERR: completes every outstanding request with flush_error.
  void flush();
  // The QP went back to RESET: forgets everything without completions.
  void reset();

  size_t outstanding() const { return sq_.size(); }
  uint32_t next_psn() const { return psn_end_; }
  // The oldest PSN not yet acknowledged: everything before it was delivered.
  uint32_t unacknowledged_psn() const { return una_; }
  uint64_t retransmitted() const { return retransmitted_; }
  // The recovery engine's per-QP send state, for tests and statistics.
  const recovery::RequesterState& recovery_state() const { return *engine_; }

 private:
  struct Slot {
    SendWr wr;
    const MemoryRegion* mr = nullptr;
    uint32_t first_psn = 0;
    uint32_t span = 1;           // PSNs used: request packets, or READ response packets
    uint32_t read_received = 0;  // READ: responses placed, in order
    // READ under selective repeat (R-READ): which responses arrived beyond read_received
    // (empty until one does), and up to which index the holes before them were asked again.
    std::vector<bool> read_ahead;
    uint32_t read_asked_to = 0;
    uint32_t ssn = 0;  // receive sequence number, for SEND and WRITE_WITH_IMM
    bool consumes_receive = false;
    Time departed;  // when its last packet first left (WorkCompletion::sent_timestamp)
  };

  // Missing READ responses [first, first + count), by index within the READ.
  struct ReadHole {
    uint32_t first = 0;
    uint32_t count = 0;
  };

  static bool is_read(const SendWr& wr) { return wr.opcode == WrOpcode::rdma_read; }
  Slot* find_slot(uint32_t psn);
  // A READ built from response index psn - first_psn asks for `read_responses` responses, or
  // for the rest of the READ when 0.
  void build(const Slot& slot, uint32_t psn, world::Packet& out, uint32_t read_responses = 0);
  void on_ack(uint32_t psn);
  void on_read_response(const world::Packet& packet);
  // Go-back-N: responses are taken in order only, a gap asks for the rest of the READ.
  void on_read_response_in_order(const world::Packet& packet);
  // Selective engines (R-READ): responses are placed wherever they fall, holes asked again.
  void on_read_response_selective(const world::Packet& packet);
  // Writes response `index` into the READ's buffer; false (and the QP failed) if it overruns.
  bool place_read_response(Slot& slot, uint32_t index, const world::Payload& payload);
  // Moves una_ through the READs at the front as far as their responses have arrived,
  // completing each whole one, and acknowledges what an ACK passed meanwhile.
  void read_progress();
  // Selective engines: the READ at the front misses responses that later arrivals show lost
  // (or, once the responder has gone past it, any at all): ask for them.
  void check_read_holes();
  // The first run of missing responses at or after index `from` that a later arrival shows
  // lost, or with `tail` also one that runs to the READ's end.
  std::optional<ReadHole> next_read_hole(const Slot& slot, uint32_t from, bool tail) const;
  // Selective engines: builds the re-request of the next hole of the READ at una_; false if
  // there is none.
  bool produce_read_repair(world::Packet& out);
  // Moves una forward to `una` (never past an unfinished READ) and completes finished slots.
  // Returns true if una moved.
  bool acknowledge_to(uint32_t una);
  // `sent`: UC/UD, the front request's last packet is being built and the device completes it
  // (DeviceConfig::complete_sends_at_transmit); else it completes now (RC: acknowledged).
  void complete_front(bool sent = false);
  // A READ's responses went missing: ask for them again.
  void report_read_gap();
  // Completes slot `culprit` with `status` and every other one with flush_error, in posting
  // order, then moves the QP to ERR.
  void fail(WcStatus status, size_t culprit);
  void after_progress();
  void arm_timer();
  void on_timer();
  // DataPathConfig::serialize_verbs_after_retransmission: whether a verb retransmitted to its
  // end still waits for its ACK (nothing from a later verb may leave meanwhile), and setting
  // that wait after the retransmission of `psn` in `slot`.
  bool waiting_for_retransmitted_verb();
  void note_retransmission(const Slot& slot, uint32_t psn);
  Time timeout() const;
  uint32_t in_flight() const;

  QueuePair& qp_;
  NicContext& nic_;
  std::unique_ptr<recovery::RequesterState> engine_;
  // The SACK state as of the pipeline's tail (engines that stall the pipeline only).
  std::unique_ptr<recovery::RequesterState> pipeline_view_;
  std::deque<Slot> sq_;
  size_t hint_ = 0;       // index of the slot find_slot found last
  uint32_t una_ = 0;      // oldest unacknowledged PSN
  uint32_t snd_max_ = 0;  // next PSN never sent
  uint32_t psn_end_ = 0;  // next PSN to assign to a posted request
  uint32_t acked_ = 0;    // highest cumulative ACK, which may pass an unfinished READ
  uint32_t next_ssn_ = 0;
  uint8_t retries_left_ = 0;
  uint8_t rnr_retries_left_ = 0;
  bool read_gap_reported_ = false;
  bool read_resend_ = false;     // selective repeat: re-request the READ at una_ next
  bool read_tail_lost_ = false;  // ... including responses missing at its end
  // A timeout fired and the QP has not had a transmit turn since (its resend has not left).
  bool awaiting_turn_ = false;
  // The end PSN of the verb last retransmitted to its end, while it is unacknowledged
  // (serialize_verbs_after_retransmission).
  std::optional<uint32_t> retransmitted_verb_end_;
  Time rnr_until_ = Time::zero();
  Time progress_at_ = Time::max();  // last progress; max while nothing is in flight
  world::TimerId timer_;
  world::TimerId rnr_timer_;  // the wake-up at the end of an RNR wait
  uint64_t retransmitted_ = 0;
};

}  // namespace bifrost::rnic
