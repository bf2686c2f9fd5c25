#pragma once
// One RoGUE connection (Le et al., SoCC '18): verbs in, verbs out. The application posts
// WRITE, READ and SEND verbs of up to 2 GB and receives; beneath, RoGUE cuts large verbs into
// segments, signals once per batch, keeps at least two batches enqueued, clocks batches by a
// Vegas window per direction (WRITE/SEND, and READ, whose data comes the other way), paces the
// QP's NIC rate limiter at cwnd / base RTT, and measures one RTT per batch from NIC timestamps
// (RC: the batch's completion; UC: the receiver library's echo). Over RC a failed QP is
// replaced in the same turn by its shadow; over UC nothing is retransmitted.
//
// The receive side is RoGUE's library (rogue_receiver.h): it owns the QP's receive queue,
// answers UC echo requests, applies the READ rate the peer asks for, and hands SENDs and
// immediates to the application's posted receives in order.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/core/inplace_function.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/endpoint_handler.h"
#include "bifrost/transport/message.h"
#include "bifrost/transport/path.h"
#include "bifrost/transport/path_resync.h"
#include "bifrost/transport/reliability/wqe_window.h"
#include "bifrost/transport/retired_qps.h"
#include "bifrost/transport/rogue/host_cpu.h"
#include "bifrost/transport/rogue/rogue_config.h"
#include "bifrost/transport/rogue/rogue_stats.h"

namespace bifrost::transport::rogue {

class BatchWindow;
class RogueReceiver;

enum class Op : uint8_t { write, read, send };

// An application verb (ibv_send_wr with one SGE).
struct Work {
  uint64_t wr_id = 0;
  Op op = Op::write;
  MessageBuffer local;          // WRITE/SEND: the bytes; READ: where they land
  RemoteAddress remote;         // WRITE/READ
  bool signaled = true;         // false: no completion unless it fails
  std::optional<uint32_t> imm;  // WRITE_WITH_IMM / SEND_WITH_IMM
};

enum class Status : uint8_t { success, failed };

// A send-side completion: one per signaled verb, after all of its segments completed.
struct Completion {
  uint64_t wr_id = 0;
  Op op = Op::write;
  Status status = Status::success;
  uint64_t bytes = 0;
};
// A receive completion: a SEND's bytes in the posted buffer, or a WRITE_WITH_IMM's immediate.
struct Receive {
  uint64_t wr_id = 0;
  uint64_t bytes = 0;
  std::optional<uint32_t> imm;
  bool by_write = false;  // a WRITE_WITH_IMM (no bytes in the receive buffer)
};
using CompletionHandler = InplaceFunction<void(const Completion&), 32>;
using ReceiveHandler = InplaceFunction<void(const Receive&), 32>;

class RogueConnection final : public EndpointHandler, private PathResyncOwner {
 public:
  // Creates the QPs (active + shadow) and the receiver library's memory. With the NIC's
  // limiters per priority (a ConnectX-3 Pro), the connection claims one of them for its QPs, as
  // RoGUE gives every active QP its own (§3.3): it throws Error when every limiter is taken,
  // rather than share one silently. Throws Error for an invalid config.
  RogueConnection(Endpoint& endpoint, const RogueConfig& config);
  ~RogueConnection() override;
  RogueConnection(const RogueConnection&) = delete;
  RogueConnection& operator=(const RogueConnection&) = delete;

  // What the peer needs to connect (exchanged out of band), and connecting to the peer's.
  // connect throws Error if the peer's QP type or QP count differs.
  ConnectionOffer offer() const;
  void connect(const ConnectionOffer& peer);

  // Queues a verb; throws Error for an empty or oversized verb, a READ over UC, a SEND above
  // max_send_bytes, or (UC) an immediate with bit 31 set (RoGUE's own, wire/rogue_imm.h).
  void post(const Work& work);
  // A receive for the next SEND or WRITE_WITH_IMM (buffer length 0: immediates only).
  void post_recv(uint64_t wr_id, const MessageBuffer& buffer);
  void set_completion_handler(CompletionHandler handler) { on_completion_ = std::move(handler); }
  void set_receive_handler(ReceiveHandler handler);
  // Called with every RTT sample that reaches the CC (either direction's window).
  void set_rtt_observer(RttObserver observer) { rtt_observer_ = std::move(observer); }
  void observe_rtt(Time sample) {
    if (rtt_observer_) rtt_observer_(sample);
  }
  // Called at every congestion-control event (rogue_stats.h TraceEvent).
  void set_trace(std::function<void(const TraceEvent&)> trace) { trace_ = std::move(trace); }
  void trace(const TraceEvent& event) const {
    if (trace_) trace_(event);
  }

  bool connected() const { return peer_ != nullptr; }
  // Nothing queued or in flight on the send side.
  bool idle() const;
  const RogueStats& stats() const { return stats_; }
  const ResyncStats& resync_stats() const { return resync_stats_; }
  const RogueConfig& config() const { return config_; }
  const std::vector<Path>& paths() const { return paths_; }
  // The WRITE/SEND window (and the READ window), in bytes, and the rate on the limiter.
  uint64_t write_window() const;
  uint64_t read_window() const;
  std::optional<Rate> write_rate() const;
  uint32_t id() const { return id_; }

  // EndpointHandler.
  void on_send_completion(const rnic::WorkCompletion& wc) override;
  void on_receive_completion(const rnic::WorkCompletion& wc) override;
  UdVerdict on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                          Time nic_time) override;

  // For the receiver library and the windows.
  Endpoint& endpoint() { return endpoint_; }
  const ConnectionOffer& peer() const { return *peer_; }
  rnic::QueuePair& active_qp();
  // Which path `qp` is; throws Error for a QP of no path.
  size_t path_index(const rnic::QueuePair& qp) const;
  // A UC echo from the peer's library arrived (RoGUE's immediate on a zero-length WRITE).
  void on_echo(uint8_t batch_sequence, Time response_time, Time arrival);
  // READ pacing: asks the peer's library to limit its QP that sends our READ responses.
  void ask_peer_rate(Rate rate);
  // UC, after a sample timeout: a batch of one echo request, so a sample can arrive.
  void post_probe();

 private:
  // An application verb being cut into segments.
  struct Verb {
    Work work;
    uint64_t sequence = 0;       // application order
    uint64_t cut = 0;            // bytes handed to segments so far
    uint32_t segments_open = 0;  // posted and not yet completed
    bool finished = false;       // completed (or failed); popped once the verbs before it are
  };
  // One posted WQE.
  struct Segment {
    uint64_t wr_id = 0;  // also the WqeWindow key
    uint64_t bytes = 0;
    uint64_t verb = 0;    // Verb::sequence
    uint64_t offset = 0;  // within the verb
    bool last_of_verb = false;
    bool closes_batch = false;      // its completion is the batch's signal
    bool read = false;              // which window
    bool tag_only = false;          // UC: a zero-length WRITE_WITH_IMM asking for an echo
    bool consumes_receive = false;  // a SEND or an application WRITE_WITH_IMM
    uint64_t batch = 0;
  };
  // RC: the takeover notice this side sends until the peer acknowledges it.
  struct TakeoverNotice {
    ControlMessage message;
    uint32_t attempts = 0;
    world::TimerId retry;
  };

  Path fresh_path(PathRole role);
  void connect_path(size_t index);
  void schedule_pump();
  void pump();
  // Posts the next batch of the window the next verb belongs to; false if it may not go.
  bool post_batch();
  // The NIC clock read that opens a batch (t_enq), once the host CPU allows it: with
  // clock_read_cost the read starts when the CPU is free and the batch goes when it returns
  // (nullopt until then: a wake-up is set).
  std::optional<Time> batch_clock();
  // A NIC clock read, counted (host_cpu.h models its cost only in batch_clock).
  Time read_nic_clock();
  // RoGUE handled a signal of its own: the CPU is busy for signal_cost.
  void charge_signal();
  void charge(Time cost);
  // Pumps again at `when` (the host CPU free, or a clock read back).
  void wake_at(Time when);
  // The length of the next segment of `v` (a SEND goes whole).
  uint64_t next_segment(const Verb& v) const;
  void post_segment(Verb& v, uint64_t length, bool closes_batch);
  // The work request of `length` bytes of `v` from `offset` (imm: what its immediate carries).
  rnic::SendWr segment_wr(const Verb& v, uint64_t offset, uint64_t length, bool signaled,
                          std::optional<uint32_t> imm) const;
  // UC: a zero-length WRITE_WITH_IMM asking the peer's library to echo `batch`.
  void post_tag(uint64_t batch);
  void post_wqe(const rnic::SendWr& wr, const Segment& segment);
  void on_control(const ControlMessage& message);
  void retire(const Segment& s, Time completed);
  void finish_verb(Verb& v, Status status);
  void pop_finished_verbs();
  BatchWindow& window_of(Op op);
  // RC: the active QP failed; its shadow takes over in this turn (rogue_shadow.cc): the
  // failed verbs go again on it whole, and the failed QP is resynchronised in the background
  // to become the next shadow. Without a ready shadow they wait for that resync.
  void take_over();
  // Moves traffic from the failed path to the shadow (or, with none ready, to waiting_).
  void switch_to_shadow(size_t failed);
  void resend(const std::vector<Segment>& segments);
  void send_takeover_notice(size_t index);
  void repeat_takeover_notice();
  std::optional<size_t> path_with_role(PathRole role) const;
  // PathResyncOwner (rogue_shadow.cc).
  void replace_path(size_t index) override;
  uint32_t path_qpn(size_t index) const override { return paths_[index].qp->qp_num(); }
  uint32_t path_psn(size_t index) const override { return paths_[index].first_psn; }
  void bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) override;
  void on_path_taken(size_t index) override;
  void on_resync_end(size_t index, bool ok) override;
  bool post_control(const ControlMessage& message) override;
  uint32_t peer_connection_id() const override { return peer_->connection_id; }
  bool yields_to_peer() const override;
  // A resynchronised QP is ready after the NIC's QP recovery cost.
  void on_path_ready(size_t index);
  Verb* find_verb(uint64_t sequence);

  Endpoint& endpoint_;
  uint32_t id_;
  RogueConfig config_;
  std::vector<Path> paths_;  // [0] active, [1] shadow (RC with shadow_qp)
  std::unique_ptr<ConnectionOffer> peer_;
  std::unique_ptr<BatchWindow> write_window_;
  std::unique_ptr<BatchWindow> read_window_;
  std::unique_ptr<RogueReceiver> receiver_;
  std::deque<Verb> verbs_;  // by sequence; finished ones popped from the front
  uint64_t next_verb_ = 0;
  uint64_t next_wr_id_ = 1;
  WqeWindow<Segment> posted_;
  std::vector<Segment> waiting_;  // failed verbs' segments with no QP to go on yet
  uint64_t receives_done_ = 0;    // receive-consuming segments acknowledged, in order
  std::optional<TakeoverNotice> notice_;
  ResyncStats resync_stats_;
  PathResync resync_;
  RetiredQps retired_;
  bool pump_scheduled_ = false;
  // The host CPU (RogueConfig::signal_cost, clock_read_cost): busy until, the clock read a
  // batch waits on, and the wake-up for the pump.
  struct ClockRead {
    Time value;     // the NIC's time when the read started
    Time ready_at;  // when it returns and the batch may go
  };
  HostCpu cpu_;
  std::optional<ClockRead> clock_read_;
  world::TimerId cpu_wake_;
  Time cpu_wake_at_;
  CompletionHandler on_completion_;
  RttObserver rtt_observer_;
  std::function<void(const TraceEvent&)> trace_;
  RogueStats stats_;
  // Per-priority limiter mode: the NIC limiter this connection's QPs (active and shadow) share.
  std::optional<size_t> limiter_;
};

}  // namespace bifrost::transport::rogue
