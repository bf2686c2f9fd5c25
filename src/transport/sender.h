#pragma once
// The outgoing half of a connection: queues messages and one-sided operations, cuts large ones
// into chunks, numbers and posts WQEs within the congestion window, and (software_uc) learns
// from software ACKs what arrived, samples the RTT, and sends lost WQEs again. It also posts
// the replies the receiving half asks for (grants, refusals, read completions).
#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/net/ring_queue.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/transport/chunking/chunk_policy.h"
#include "bifrost/transport/chunking/loss_estimate.h"
#include "bifrost/transport/connection.h"
#include "bifrost/transport/reliability/rto_clock.h"
#include "bifrost/transport/reliability/selective_window.h"
#include "bifrost/transport/reliability/tail_probe.h"
#include "bifrost/transport/reliability/verdict_ledger.h"
#include "bifrost/transport/rtt/rtt_estimator.h"
#include "bifrost/transport/wire/send_header.h"
#include "bifrost/transport/wire/write_imm.h"
#include "bifrost/world/scheduler.h"
#include "floor_index.h"
#include "numbered_slots.h"
#include "slot_pool.h"

namespace bifrost::transport {

class Sender {
 public:
  Sender(Connection& connection, Endpoint& endpoint, const TransportConfig& config);
  ~Sender();

  uint64_t send(const MessageBuffer& message, SendCallback done);
  // One-sided operations (sender_one_sided.cc).
  uint64_t write(const MessageBuffer& local, RemoteAddress remote, SendCallback done);
  uint64_t read(const MessageBuffer& local, RemoteAddress remote, SendCallback done);
  // The receiver half asks to send the peer a reply: a grant for an incoming large message, a
  // refused one-sided WRITE, a finished READ (a SEND WQE of ours, reliable like any other).
  void send_reply(SendHeader header);
  // The receiver half got a software_uc read request for `length` bytes of `source` (checked
  // readable) to be written to the peer's `destination`; read_done answers it.
  void serve_read(uint32_t read_id, const MessageBuffer& source, RemoteAddress destination);
  // The peer refused one of our one-sided WRITEs, or finished one of our READs.
  void on_write_refused(uint32_t message_id);
  void on_read_done(uint32_t read_id, ReadStatus status);
  // AckPath::data_qp: posts `ack` as a SEND on the primary QP, outside the window and the
  // reliable spaces (an ACK is never resent). False if no staging slot or QP is free.
  bool post_ack(const SoftAck& ack);
  void set_rtt_observer(RttObserver observer) { rtt_observer_ = std::move(observer); }
  void set_ack_delay_observer(AckDelayObserver observer) {
    ack_delay_observer_ = std::move(observer);
  }
  // The receiver half got a grant for one of our large messages.
  void on_grant(uint32_t message_id, uint64_t address, uint32_t rkey);
  void on_send_completion(const rnic::WorkCompletion& wc);
  void on_ack(const SoftAck& ack, Time ack_received_nic_time);
  void start() { pump(); }
  // The connection's QP set changed (a reconnect finished or was abandoned): post on the new
  // primary, or fail every message if no QP is left.
  void on_qps_changed() {
    repace();
    pump();
  }
  // The peer changed our max_chunk (a remote parameter): the next chunk follows it.
  void set_max_chunk(uint32_t max_chunk);
  // The peer asked to reconnect our primary; `promoted`: a backup took over.
  void on_primary_taken(bool promoted);

  bool idle() const;
  const SenderStats& stats() const { return stats_; }
  uint64_t window_bytes() const { return cc_->window_bytes(); }
  std::optional<Rate> pacing_rate() const { return cc_->pacing_rate(); }
  const RttEstimator& rtt() const { return rtt_; }
  double loss_rate_estimate() const { return loss_estimate_.rate(); }

 private:
  // A WQE's job. notice and read_request are a one-sided operation's first SEND; read_chunk is
  // an RC RDMA READ.
  enum class Kind : uint8_t {
    message,
    request,
    reply,
    chunk,
    piece,
    notice,
    read_request,
    read_chunk
  };
  // What the application asked for.
  enum class Op : uint8_t { message, write, read };

  struct OutMessage {
    uint64_t number = 0;
    Op op = Op::message;
    MessageBuffer buffer;
    SendCallback done;
    Time posted;
    SendStatus status = SendStatus::delivered;
    bool large = false;  // goes (or comes back, RC read) as chunks: tracked per unit
    bool has_write_seq = false;
    // The staging slot of its SEND (small: header + bytes; large: the write request), kept
    // for retransmissions until the message finishes (large: until the grant shows the request
    // arrived and no request WQE still reads it), and the SEND number they keep.
    std::optional<uint32_t> slot;
    uint32_t requests_in_nic = 0;  // large: request WQEs posted and not yet completed
    uint32_t send_number = 0;
    // Large and one-sided.
    uint64_t write_seq = 0;
    uint32_t read_id = 0;  // software_uc read: what read_done names
    bool granted = false;
    uint64_t remote_addr = 0;
    uint32_t rkey = 0;
    uint64_t chunked = 0;          // bytes handed to chunks so far
    std::vector<bool> unit_acked;  // per unit
    uint32_t units_acked = 0;
    std::vector<uint64_t> chunk_global;  // per unit offset: the chunk starting there
    std::vector<uint64_t> piece_global;  // per unit: its latest piece (a lost chunk's resend)
    // Both sizes.
    bool acked = false;        // the receiver has all of it
    uint32_t posted_wqes = 0;  // WQEs reading its bytes that the NIC has not completed
  };

  struct Reply {
    SendHeader header;  // numbered at its first posting; a retransmission keeps the number
    std::optional<uint32_t> slot;
    bool acked = false;
    uint32_t posted_wqes = 0;
  };

  struct InFlight {
    uint64_t global = 0;
    Kind kind = Kind::message;
    uint64_t key = 0;  // message number; reply: the reply's number
    uint32_t unit = 0;
    uint32_t units = 0;
    uint32_t bytes = 0;
    uint32_t send_number = 0;
    std::optional<uint32_t> slot;  // pieces: the staging slot, freed at the send completion
    uint64_t posted_at = 0;        // bytes the connection had posted before this WQE
    Time t1_posted;                // NIC clock at posting (RC mode's RTT start)
    Time t1;                       // the send completion's NIC timestamp
    // When its data first left the NIC (the first successful send completion of any copy): a
    // resend keeps its original's, so the age a timeout judges is how long the data has gone
    // unacknowledged on the wire, whatever copy is out now. Unset while no copy has left: time
    // queued in the sender's NIC is no time in which data can be lost.
    std::optional<Time> out_since;
    uint32_t qp_num = 0;     // the QP it was posted on
    bool completed = false;  // the NIC reported the send completion (t1 is known)
    bool hinted = false;     // carried the hint bit: its ACK is due one RTT after it left
    bool done = false;       // acknowledged or declared lost
  };

  struct Retransmit {
    Kind kind = Kind::message;
    uint64_t key = 0;
    uint32_t unit = 0;
    uint32_t units = 1;  // RC one-sided chunks go again whole
    // A piece sent before keeps its SEND number, so the receiver's SEND space has no hole.
    std::optional<uint32_t> send_number;
    std::optional<Time> out_since;  // the lost WQE's InFlight::out_since
  };

  // Posting. Each step posts at most one WQE of its queue: posted, blocked (by the window or
  // staging slots: lower queues must wait too), or empty (try the next queue).
  // blocked: nothing more may go now (window, WQE limit); no_slot: this step needs a staging
  // slot and none is free, but a later step (WRITE chunks need none) may still post.
  enum class Step : uint8_t { posted, blocked, no_slot, empty };
  void pump();
  // The application's calls (send, grants) post on the next turn of the scheduler instead of
  // at once, so a burst of sends made in one turn is posted together and only its last WQE
  // carries the "nothing more to post" hint: the receiver coalesces the burst into one ACK.
  void schedule_pump();
  // Puts the CC's pacing rate on the primary QP's NIC rate limiter if it or the primary
  // changed, and starts the RTT hold-off (TransportConfig::rtt_holdoff_after_rate_change).
  void apply_pacing();
  // The QP set changed: put the rate on the primary again at the next pump, whatever QP it is
  // (a destroyed QP's address may come back as a fresh QP's).
  void repace() {
    if (paced_) paced_->qp = nullptr;
  }
  // The connection lost its last QP: every message completes as failed.
  void fail_all();
  bool post_next();
  Step post_retransmit();
  Step post_reply();
  Step post_small_or_request();
  Step post_chunk();
  bool window_allows(uint64_t bytes) const;
  // Messages up to this many bytes go by SEND (send_threshold, lower while losses are seen).
  uint64_t send_threshold() const;
  // window_allows, or the first resend after a timeout (which goes whatever is still open).
  bool resend_allowed(uint64_t bytes) const;
  // After posting a WQE, its hint bit: the receiver should ACK at once because the window is
  // exhausted or because nothing else is queued (no later WQE would trigger the ACK soon).
  bool ack_now_hint() const;
  // The least a next WQE could need of the window (0: it may be small, one unit covers it): a
  // queued SEND's size, or for a chunk the silly-window threshold of post_chunk.
  uint64_t next_wqe_bytes() const;
  bool has_more_to_post() const;
  // A new operation's entry, queued for posting by the next turn's pump.
  OutMessage& add_message(Op op, const MessageBuffer& buffer, SendCallback done);
  // Throws Error unless `buffer` is 1 byte to the largest message inside a region with memory.
  void check_buffer(const MessageBuffer& buffer, const char* what) const;
  // The first SEND of an operation (a small message, a write request, a notice, a read
  // request): its kind, header (unnumbered) and length with the header.
  struct FirstSend {
    Kind kind;
    SendHeader header;
    uint32_t bytes;
  };
  FirstSend first_send(const OutMessage& m) const;
  // Writes what follows the header of m's first SEND into its slot (once).
  void fill_first_send(const OutMessage& m, uint32_t slot);
  void post_range(InFlight& wqe, const OutMessage& m, uint64_t offset, uint64_t length, bool hint);
  // Opens a WQE in the window; `again`: it resends the data of that retransmission.
  InFlight& record(Kind kind, uint64_t key, uint32_t bytes, const Retransmit* again = nullptr);
  // Adds an RTT sample of `wqe` to the estimator; what the CC may see of it (nothing while
  // the sample is held off after a rate change).
  std::optional<Time> add_rtt_sample(uint64_t posted_at, Time rtt);
  // ACK SENDs on the data QP carry this bit in their wr_id beside their staging slot: global
  // numbers, the other wr_ids, start at 1 and never reach it.
  static constexpr uint64_t kAckWr = uint64_t{1} << 63;
  static bool is_ack_wr(uint64_t wr_id) { return (wr_id & kAckWr) != 0; }
  static uint32_t ack_slot_of(uint64_t wr_id) { return static_cast<uint32_t>(wr_id & ~kAckWr); }
  // Writes `header` (numbered from `wqe`) at the slot's start and posts the slot's first
  // `length` bytes as a SEND.
  void post_send_slot(InFlight& wqe, uint32_t slot, SendHeader header, uint32_t length);
  void copy_into_slot(uint32_t slot, const MessageBuffer& from, uint64_t offset, uint64_t length);
  // scratch_ with the bytes `encode` writes into its first `capacity` bytes (it returns how
  // many): headers and trailers are written through it, so posting allocates nothing once its
  // capacity has grown to the largest (a software ACK on the data QP).
  template <typename Encode>
  const world::Payload& scratch(size_t capacity, Encode&& encode) {
    scratch_.token = 0;
    scratch_.borrowed = {};
    scratch_.bytes.resize(capacity);
    scratch_.length = static_cast<uint32_t>(encode(std::span(scratch_.bytes)));
    scratch_.bytes.resize(scratch_.length);
    return scratch_;
  }
  uint32_t next_send_number() { return static_cast<uint32_t>(next_send_number_++); }
  uint32_t write_id(uint64_t write_seq) const {
    return static_cast<uint32_t>(write_seq) & imm_.message_id_mask();
  }
  uint32_t unit_bytes(const OutMessage& m, uint32_t unit) const;
  uint64_t write_seq_of(uint32_t message_id) const;

  // Acknowledgements and loss.
  std::optional<uint64_t> resolve(const AckedWqe& entry);
  // An ACK's cumulative part in the sender's numbers: SEND reliable numbers below send_floor,
  // the WRITE messages before write_seq and that one's units below `units` have arrived.
  struct Cumulative {
    uint32_t send_floor = 0;
    uint64_t write_seq = 0;
    uint32_t units = 0;
  };
  Cumulative cumulative_of(const SoftAck& ack) const;
  // Acknowledges the open WQEs the cumulative part newly covers (their own ACKs were lost),
  // adding their bytes to `acked_bytes`: the SEND numbers and the WRITE units between the
  // previous cumulative and this one, not the whole window.
  void acknowledge_cumulative(const Cumulative& cumulative, uint64_t& acked_bytes);
  // The WRITE units of the message `write_seq` in [from, limit) the cumulative covers; returns
  // where the next cumulative part must look again (a chunk it covers only in part).
  uint32_t acknowledge_write_units(uint64_t write_seq, uint32_t from, uint32_t limit,
                                   uint64_t& acked_bytes);
  // A SEND number of the wire (32 bits) as the count next_send_number_ counts in.
  uint64_t send_count_of(uint32_t send_number) const {
    return next_send_number_ - ((next_send_number_ - send_number) & 0xFFFF'FFFFu);
  }
  void acknowledge(InFlight& wqe);
  // `by_timeout`: the number of the timeout (stats_.timeouts) that declared it, 0 for another
  // verdict (a gap in the ACKs, a tail probe, an error completion).
  void declare_lost(InFlight& wqe, uint64_t by_timeout = 0);
  // An ACK named a transmission that QP `qp_num` carried: that QP's path delivers.
  void on_carrier_answered(uint32_t qp_num);
  // A late ACK of a WQE declared lost (its verdict was wrong): counts it, and if it is the
  // ACK's timing entry returns its RTT sample (eq. (1): the transmission is unambiguous).
  std::optional<Time> on_refuted(const LostVerdict& verdict, bool timing_entry, const SoftAck& ack,
                                 Time ack_received_nic_time);
  void release_posted(const InFlight& wqe);
  void try_finish(OutMessage& m);
  // Large: frees the write request's slot once the grant came and no request WQE reads it.
  void release_request_slot(OutMessage& m);
  void try_release_reply(uint64_t id);
  // A one-sided operation ends early (refused, access error): none of its WQEs in flight is
  // waited for any more.
  void end_operation(OutMessage& m, SendStatus status);
  Time rto() const;  // the estimator's RTO, doubled per consecutive timeout
  void arm_timer();
  void on_timer();
  // Declares lost, at a timeout, the open WQEs presumed lost: those the NIC has sent whose data
  // has been out at least `age` before `now`. The others are counted in timeout_spared.
  // Returns how many WQEs it declared lost.
  uint32_t declare_timed_out(Time now, Time age);
  // Arms the probe for the tail WQE `global` (the hinted one that just left the NIC).
  void arm_tail_probe(uint64_t global);
  void fail_over_rc(uint32_t failed_qp);
  // RC: every WQE not yet completed goes again (its QP can no longer complete it).
  void resend_in_flight();
  // The primary was given up: `promoted` if a backup took over (else a reconnect must bring
  // a QP back). The stall (last_failover_gap) runs from here to the next acknowledgement.
  void count_failover(bool promoted);

  Connection& connection_;
  Endpoint& endpoint_;
  world::Scheduler& scheduler_;
  TransportConfig config_;
  WriteImmCodec imm_;
  std::unique_ptr<CongestionControl> cc_;
  std::unique_ptr<ChunkPolicy> chunking_;
  PacketLossEstimate loss_estimate_;  // sizes chunks while losses are seen
  RttEstimator rtt_;
  std::unique_ptr<rnic::HostMemory> staging_memory_;
  const rnic::MemoryRegion* staging_region_ = nullptr;
  SlotPool staging_;

  uint64_t next_message_ = 1;
  uint64_t next_write_seq_ = 0;
  uint64_t next_send_number_ = 0;
  // Operations, replies and the lookups by the numbers the wire carries, in slots indexed by
  // number (no hashing, no allocation per message once warm).
  NumberedSlots<OutMessage> messages_;
  NumberedSlots<uint64_t> message_of_write_;  // write seq -> message number
  NumberedSlots<Reply> replies_;              // by reply number
  NumberedSlots<uint64_t> reads_;             // read id -> message number
  uint64_t next_reply_ = 1;
  uint32_t next_read_id_ = 1;
  // First SENDs: small messages, requests, notices, reads.
  net::RingQueue<uint64_t> small_queue_;
  net::RingQueue<uint64_t> write_queue_;  // chunks to post: granted messages, one-sided operations
  net::RingQueue<uint64_t> reply_queue_;
  net::RingQueue<Retransmit> retransmit_queue_;
  SelectiveWindow<InFlight> window_;  // by global number, oldest first
  // What the cumulative parts covered so far: the open WQEs by SEND number (software_uc), and
  // the WRITE message and unit up to which they were acknowledged.
  FloorIndex open_by_send_number_;
  uint64_t cumulative_write_seq_ = 0;
  uint32_t cumulative_write_units_ = 0;
  // Every WQE numbered below it was settled by an ACK's in-order rule: the next ACK's rule
  // starts here, not at the window's front.
  uint64_t lost_below_ = 0;
  RtoClock rto_clock_;
  VerdictLedger verdicts_;             // the last WQEs declared lost (software_uc)
  uint64_t last_refuted_timeout_ = 0;  // the newest timeout counted in spurious_timeouts
  // The QP the last UC failover gave up, until an ACK shows its path delivered or another
  // failover comes (failovers_refuted).
  std::optional<uint32_t> given_up_qp_;
  world::TimerId timer_;
  world::TimerId probe_;
  TailProbe tail_probe_;  // when a tail probe may be armed, and its delay
  // A timeout declared WQEs lost and none has been resent since: the first resend goes whatever
  // the window (resend_allowed).
  bool timeout_resend_due_ = false;
  world::TimerId deferred_pump_;
  world::TimerId activation_;  // pumps when a promoted backup is ready
  Time nic_busy_until_;        // RC: when the NIC is estimated to finish the WQEs posted so far
  std::optional<Time> failed_over_at_;  // until the first acknowledgement on the new primary
  bool failed_ = false;
  // The rate last put on a QP's limiter: the QP (nullptr after a change of the QP set) and the
  // rate (nullopt: unlimited).
  struct Pacing {
    const rnic::QueuePair* qp = nullptr;
    std::optional<Rate> rate;
  };
  std::optional<Pacing> paced_;
  // WQEs posted before this byte count carry queueing of an older pacing rate.
  uint64_t rtt_holdoff_until_ = 0;
  SenderStats stats_;
  RttObserver rtt_observer_;
  AckDelayObserver ack_delay_observer_;
  world::Payload scratch_;  // see scratch()
};

}  // namespace bifrost::transport
