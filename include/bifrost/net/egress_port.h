#pragma once
// The transmit side of a port, shared by switch ports and host NICs: 8 priority queues, a
// control-frame lane that goes before data, a scheduler (strict or DWRR), and a flow-control
// gate. A control frame never preempts: it waits for the frame being serialized.
//
// Events: none while idle. Starting a frame schedules its arrival (Channel) and, only if more
// frames are queued, one wake-up when the wire is free. A frame enqueued on an idle port goes
// on the wire at once.
#include <array>
#include <cstdint>
#include <memory>

#include "bifrost/core/bytes.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/net/frame.h"
#include "bifrost/net/priority_scheduler.h"
#include "bifrost/net/ring_queue.h"
#include "bifrost/world/packet.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class Channel;

// A data frame waiting in an egress queue. `tag` belongs to the node that queued it (a switch
// keeps the ingress port and buffer pool there, a host the sender's cookie).
struct QueuedPacket {
  world::PacketPtr packet;
  uint32_t frame_bytes = 0;
  uint32_t tag = 0;
};

// Told when a data frame leaves its queue to go on the wire (after the port's busy time is
// set, so the listener may enqueue more).
class EgressListener {
 public:
  virtual ~EgressListener() = default;
  virtual void on_dequeue(uint32_t port_id, int priority, uint32_t frame_bytes, uint32_t tag) = 0;
};

struct EgressCounters {
  std::array<uint64_t, kPriorities> tx_packets{};
  std::array<uint64_t, kPriorities> tx_bytes{};  // frame bytes
  uint64_t control_frames_sent = 0;
  uint64_t control_frames_merged = 0;  // pause frames folded into one still waiting
  uint64_t control_frames_received = 0;
  uint64_t control_frames_ignored = 0;  // arrived with no gate installed
};

class EgressPort {
 public:
  EgressPort(world::Scheduler& scheduler, uint32_t id, const SchedulingConfig& config);
  EgressPort(const EgressPort&) = delete;
  EgressPort& operator=(const EgressPort&) = delete;

  uint32_t id() const { return id_; }
  // Throws Error once data is queued.
  void set_scheduling(const SchedulingConfig& config);
  void set_listener(EgressListener* listener) { listener_ = listener; }
  // Installs the upstream half of flow control; replaces any earlier gate.
  void set_gate(std::unique_ptr<EgressGate> gate);
  EgressGate* gate() const { return gate_.get(); }

  // Called by Link. Throws Error if a channel is already attached.
  void attach(Channel& channel);
  Channel* channel() const { return channel_; }

  // Queues a data frame at `priority` (0..7). Throws Error if no link is attached.
  void enqueue(int priority, QueuedPacket entry);
  // Queues a control frame on the lane that goes before all data. A pause frame merges into a
  // pause frame that has not started transmission yet.
  void send_control(const ControlFrame& frame);
  // A control frame from the far end arrived: hand it to the gate.
  void receive_control(const ControlFrame& frame);
  // Something may be sendable again (a gate opened).
  void wake();

  Bytes queue_bytes(int priority) const { return Bytes(queue_bytes_[priority]); }
  Bytes total_queue_bytes() const;
  std::size_t queue_packets(int priority) const { return queues_[priority].size(); }
  // True while a frame is on the wire.
  bool busy() const { return scheduler_.now() < busy_until_; }
  const EgressCounters& counters() const { return counters_; }

 private:
  void transmit_next();
  void schedule_wakeup();
  int pick_priority();

  world::Scheduler& scheduler_;
  uint32_t id_;
  PriorityScheduler picker_;
  Channel* channel_ = nullptr;
  EgressListener* listener_ = nullptr;
  std::unique_ptr<EgressGate> gate_;
  std::array<RingQueue<QueuedPacket>, kPriorities> queues_;
  std::array<uint64_t, kPriorities> queue_bytes_{};
  uint8_t nonempty_mask_ = 0;
  RingQueue<ControlFrame> control_;
  Time busy_until_ = Time::zero();
  bool wakeup_pending_ = false;
  EgressCounters counters_;
};

}  // namespace bifrost::net
