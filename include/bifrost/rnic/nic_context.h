#pragma once
// What a queue pair's data path needs from its device: time, memory, the transmit scheduler,
// the recovery engine and the device-wide configuration. Device implements it; tests may too.
#include <cstdint>
#include <optional>

#include "bifrost/core/time.h"
#include "bifrost/rnic/memory_region.h"
#include "bifrost/rnic/rate_limiter.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/wire/headers.h"
#include "bifrost/world/address.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic {

class QueuePair;
class CompletionQueue;
struct WorkCompletion;

// Device-wide data-path behaviour.
struct DataPathConfig {
  // RC responder: besides every packet with AckReq (the last of each message), ACK after this
  // many in-order packets without one; 0 ACKs only on AckReq.
  uint32_t ack_every_packets = 8;
  // RC responder: the longest an accepted in-order request packet waits for its ACK (the
  // InfiniBand "Local CA ACK Delay", which the requester's timeout is meant to cover). Without
  // it a QP slowed below ack_every_packets packets per QP timeout (DCQCN at its minimum rate,
  // thousands of QPs sharing a port) times out with nothing lost. Zero disables the bound.
  // Why the responder and why 8 us: docs/rnic.md, "ACK timing".
  Time ack_delay = Time::us(8);
  // Transmit scheduler: packets a QP sends per turn before the next ready QP of its class
  // (1: packet round-robin). A burst keeps a QP's packets together on the wire, so a receiver's
  // QP-context cache misses once per burst rather than once per packet.
  uint32_t burst_packets = 1;
  // Work requests a QP's send and receive queues hold (ibv_qp_cap.max_send_wr/max_recv_wr).
  uint32_t max_send_wr = 4096;
  uint32_t max_recv_wr = 4096;
  // Mark data packets ECN-capable (ECT(0)), as NICs with DCQCN do.
  bool ecn_capable = false;
  // Packets borrow their payload from the memory region instead of copying it
  // (world::Payload::borrowed), as a NIC DMAs at transmit time. Only for a port that is done
  // with a packet's bytes when it reports it transmitted (the sockets); needs
  // DeviceConfig::complete_sends_at_transmit, so that no UC/UD completion hands a buffer back
  // to its owner while a packet still borrows it.
  bool zero_copy_transmit = false;
  // RC requester: once a verb has been retransmitted to its end, nothing of a later verb
  // (retransmitted or new) leaves until that verb is acknowledged. ConnectX-3 Pro's go-back-N
  // as RoGUE measured it (§5.2): "delays sending the next verb until the entire verb has been
  // ACKed", so a loss among small verbs resends them one round trip each (the `cx3pro` profile).
  bool serialize_verbs_after_retransmission = false;
  // RC requester under go-back-N: what a READ response past a gap (or an ACK past an unfinished
  // READ) does. false: the requester re-issues the READ from its first missing response at
  // once, as the InfiniBand spec's implied NAK allows. true: it drops the out-of-sequence
  // responses and asks again only when its QP timer fires. No public source says which one
  // ConnectX-4 Lx does; the timer is what reproduces the collapse the Bifröst paper measured on
  // it (Fig. 7, experiments/bifrost-loss-throughput), so that experiment's ARDMA rows use it.
  bool read_gap_waits_for_timeout = false;
  // RC responder: ACK and NAK packets carry this IP traffic class (DSCP in the top six bits)
  // instead of their QP's, so NICs and switches may put them in a higher, strict-priority
  // class than the data, as deployments do for CNPs. nullopt: the QP's class, as RoCE does.
  // (READ responses stay in the QP's class: they are data.)
  std::optional<uint8_t> ack_traffic_class;
};

// What the data path counted, device-wide.
struct DataPathCounters {
  uint64_t tx_packets = 0;
  uint64_t tx_retransmitted = 0;
  uint64_t tx_acks = 0;       // ACK, NAK, SACK and RNR NAK packets
  uint64_t delayed_acks = 0;  // ACKs the responder sent because DataPathConfig::ack_delay ran out
  uint64_t rx_packets = 0;
  uint64_t rx_out_of_order = 0;      // accepted ahead of the expected PSN (SR engines)
  uint64_t rx_dropped_sequence = 0;  // dropped after a gap (GBN) or beyond the window
  uint64_t rx_duplicates = 0;
  uint64_t rx_no_qp = 0;                // no QP with the packet's destination QPN
  uint64_t rx_bad_state = 0;            // the QP could not receive in its state
  uint64_t rx_pipeline_drops = 0;       // the receive pipeline's buffer was full
  uint64_t rx_qkey_mismatch = 0;        // UD packets with the wrong Q_Key
  uint64_t rx_uc_messages_dropped = 0;  // UC messages cut by a lost packet or without a receive
  // UC packets whose PSN was not the expected one: a ConnectX NIC's out_of_sequence counter,
  // the "OOS" of the Bifröst paper's Fig. 9 (each packet after a loss, including the first
  // packet of the next message, until the receiver is back in sequence).
  uint64_t rx_uc_out_of_sequence = 0;
  uint64_t rx_ud_no_receive = 0;  // UD packets that found no receive posted
  uint64_t naks_sent = 0;
  uint64_t sacks_sent = 0;
  uint64_t rnr_naks_sent = 0;
  uint64_t access_naks_sent = 0;
  uint64_t fnacks_sent = 0;  // FaSR: a lost retransmission detected by the receiver
  uint64_t fnacks_received = 0;
  uint64_t timeouts = 0;
  uint64_t pipeline_stalls = 0;
  uint64_t cnps_sent = 0;
  uint64_t cnps_received = 0;
  uint64_t slow_restarts = 0;  // rate cuts by retransmission timeouts (DeviceConfig::slow_restart)

  // Adds every counter of `o` (summing devices).
  DataPathCounters& operator+=(const DataPathCounters& o) {
    tx_packets += o.tx_packets;
    tx_retransmitted += o.tx_retransmitted;
    tx_acks += o.tx_acks;
    delayed_acks += o.delayed_acks;
    rx_packets += o.rx_packets;
    rx_out_of_order += o.rx_out_of_order;
    rx_dropped_sequence += o.rx_dropped_sequence;
    rx_duplicates += o.rx_duplicates;
    rx_no_qp += o.rx_no_qp;
    rx_bad_state += o.rx_bad_state;
    rx_pipeline_drops += o.rx_pipeline_drops;
    rx_qkey_mismatch += o.rx_qkey_mismatch;
    rx_uc_messages_dropped += o.rx_uc_messages_dropped;
    rx_uc_out_of_sequence += o.rx_uc_out_of_sequence;
    rx_ud_no_receive += o.rx_ud_no_receive;
    naks_sent += o.naks_sent;
    sacks_sent += o.sacks_sent;
    rnr_naks_sent += o.rnr_naks_sent;
    access_naks_sent += o.access_naks_sent;
    fnacks_sent += o.fnacks_sent;
    fnacks_received += o.fnacks_received;
    timeouts += o.timeouts;
    pipeline_stalls += o.pipeline_stalls;
    cnps_sent += o.cnps_sent;
    cnps_received += o.cnps_received;
    slow_restarts += o.slow_restarts;
    return *this;
  }
};

class NicContext {
 public:
  virtual ~NicContext() = default;
  virtual world::Scheduler& scheduler() = 0;
  // The NIC clock now (CQE timestamps).
  virtual Time hw_time() const = 0;
  virtual const MemoryRegistry& memory() const = 0;
  virtual recovery::Engine& recovery() = 0;
  virtual const DataPathConfig& data_path() const = 0;
  virtual DataPathCounters& counters() = 0;
  // The source address at `index` of the GID table (the QP checked the index).
  virtual world::Ipv4 gid(size_t index) const = 0;
  virtual const RateLimiterConfig& rate_limiter_config() const = 0;
  // The QP has something to send (or may have): put it on the transmit scheduler.
  virtual void wake(QueuePair& qp) = 0;
  // The requester of `qp` timed out (ConnectX-5's slow restart reacts to it).
  virtual void on_retransmission_timeout(QueuePair& /*qp*/) {}
  // A UC or UD send whose last packet was just built (it goes to the port next): the device
  // pushes `wc` to `cq`, stamped when the packet leaves (DeviceConfig::complete_sends_at_transmit).
  virtual void complete_sent(CompletionQueue& cq, const WorkCompletion& wc) = 0;
  // An RC request's last packet was just built for the first time (it goes to the port next):
  // with complete_sends_at_transmit the device tells the requester when it left.
  virtual void note_last_packet(QueuePair& /*qp*/, uint32_t /*psn*/) {}
  // Queues an ACK-class packet (ACK, NAK, SACK, RNR NAK) of `qp`, sent before data.
  virtual void send_ack(QueuePair& qp, const wire::RoceHeaders& headers) = 0;
};

}  // namespace bifrost::rnic
