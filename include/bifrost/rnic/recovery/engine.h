#pragma once
// The loss-recovery engine of a soft RNIC: the policy half of RC reliability. The requester and
// responder (requester.h, responder.h) do the mechanics common to every engine: segmentation,
// placement, completions. The engine decides what a gap in the PSN sequence means: drop and go
// back (GBN), or accept out of order and repeat selectively (IRN, SRNIC, FaSR).
//
// One Engine per device, chosen at construction. It makes the per-QP state of both halves and
// may hold state shared by all QPs of the device (FaSR's pool), which is why the per-QP objects
// come from the engine rather than being constructed directly.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "bifrost/core/time.h"
#include "bifrost/rnic/recovery/fasr_pool.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic::recovery {

// What the responder does with an arriving request packet.
enum class Arrival : uint8_t {
  in_order,      // psn == expected: process it and advance
  out_of_order,  // ahead of expected, accepted and placed now (selective-repeat engines)
  duplicate,     // behind expected: processed before; acknowledge again
  drop,          // ahead of expected, discarded (go-back-N)
};
std::string_view to_string(Arrival arrival);

// What the responder sends back after an arrival.
enum class Feedback : uint8_t {
  none,
  ack,           // cumulative ACK (subject to coalescing)
  nak_sequence,  // NAK PSN sequence error carrying the expected PSN
  sack,          // selective ACK: cumulative PSN plus the PSN that arrived
  fnack,         // FaSR: a retransmission was lost (the packet was dropped); the sender times
                 // out early
};

// What a selective-repeat receiver answers: an ACK in order and for duplicates, a SACK out of
// order, nothing for a drop.
Feedback selective_feedback(Arrival arrival);

// Per-QP receive-side state.
class ResponderState {
 public:
  virtual ~ResponderState() = default;
  // Classifies a request packet `psn`, occupying `span` PSNs (a READ request one per response),
  // while `expected` is the next in-order PSN. Records nothing: the responder may still refuse
  // the packet (no receive posted).
  virtual Arrival classify(uint32_t psn, uint32_t expected, uint32_t span) = 0;
  // An out_of_order packet was accepted; it occupies `span` PSNs from `psn` (a READ request
  // occupies one PSN per response packet).
  virtual void record(uint32_t psn, uint32_t span) = 0;
  // After the in-order packet at `expected`, spanning `span` PSNs, was processed: the new
  // expected PSN. Selective engines skip PSNs that already arrived out of order.
  virtual uint32_t advance(uint32_t expected, uint32_t span) = 0;
  virtual Feedback feedback(Arrival arrival) = 0;
  // Extra receive-pipeline time processing this packet costs (SRNIC reads or writes its bitmap
  // in host memory). Called once per packet, in arrival order, before classify.
  virtual Time pipeline_stall(uint32_t /*psn*/, uint32_t /*expected*/) { return Time::zero(); }
  // The engine's recovery state for the SR extension of a SACK or FNACK (the key field; FaSR
  // puts its lost-cnt there, wire::FasrSackInfo); 0 for engines that send none.
  virtual uint32_t sack_info() const { return 0; }
  // The state a cumulative ACK carries in an SR extension, if any (FaSR's AACK: lost-cnt while
  // the receiver is in loss recovery).
  virtual std::optional<uint32_t> ack_info() const { return std::nullopt; }
  // Bits of NIC memory this state keeps beyond the base context and the shared structures,
  // counted from what it holds (Engine::implemented_footprint sums both halves).
  virtual uint64_t nic_state_bits() const = 0;
};

// Per-QP send-side state. PSNs are 24-bit; `una` is the oldest unacknowledged PSN and `snd_max`
// the next never-sent PSN.
class RequesterState {
 public:
  virtual ~RequesterState() = default;
  // A cumulative ACK moved una forward.
  virtual void on_ack(uint32_t una) = 0;
  // NAK sequence error: the responder expects `psn` (everything before is acknowledged).
  virtual void on_nak(uint32_t psn, uint32_t snd_max) = 0;
  // Selective ACK: everything before `una` is acknowledged and `sacked` arrived.
  virtual void on_sack(uint32_t una, uint32_t sacked, uint32_t snd_max) = 0;
  // The receiver's lost-cnt carried by the SACK about to be passed to on_sack (FaSR).
  virtual void on_sack_state(uint8_t /*lost_cnt*/, bool /*overflow*/) {}
  // FaSR's AACK: the cumulative ACK just handled (on_ack, if it moved una) carried the
  // receiver's lost-cnt, which it sends while in loss recovery.
  virtual void on_aack(uint8_t /*lost_cnt*/, bool /*overflow*/) {}
  // FaSR's FNACK: a retransmission was lost; everything before `una` is acknowledged.
  virtual void on_fnack(uint32_t /*una*/, uint32_t /*snd_max*/) {}
  // The retransmission timer expired with una..snd_max outstanding.
  virtual void on_timeout(uint32_t una, uint32_t snd_max) = 0;
  // The next PSN to retransmit, if any; the requester sends it before new packets.
  virtual std::optional<uint32_t> next_retransmission(uint32_t una, uint32_t snd_max) = 0;
  // Whether a new packet may go out with `in_flight` = snd_max - una packets outstanding.
  virtual bool may_send_new(uint32_t in_flight) const = 0;
  // The retransmission timeout with `in_flight` packets outstanding; `qp_timeout` is the QP's
  // own attribute (4.096 us * 2^timeout), which hardware GBN uses.
  virtual Time timeout(uint32_t in_flight, Time qp_timeout) const = 0;
  // Extra receive-pipeline time a SACK costs (SRNIC asks its host bitmap which PSNs to
  // resend). Called on a separate view of this state, once per SACK in arrival order, with the
  // SACK's cumulative and SACKed PSNs.
  virtual Time sack_stall(uint32_t /*una*/, uint32_t /*sacked*/) { return Time::zero(); }
  // Bits of NIC memory this state keeps beyond the base context and the shared structures,
  // counted from what it holds (Engine::implemented_footprint sums both halves).
  virtual uint64_t nic_state_bits() const = 0;
};

// NIC memory a recovery engine needs.
struct MemoryFootprint {
  uint64_t per_qp_bytes = 0;  // beyond the 256 B base context every engine has
  uint64_t shared_bytes = 0;  // held once per device
};
inline constexpr uint64_t kBaseContextBytes = 256;
// Whole bytes that `bits` take.
inline constexpr uint64_t bytes_of_bits(uint64_t bits) {
  return (bits + 7) / 8;
}

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  // True if request packets carry the selective-repeat extension header (so packets that
  // arrive before their message's first packet can be placed).
  virtual bool selective() const = 0;
  // The FaSR paper's accounting (section V-A, what its Fig. 8(b) plots): IRN 20 B + five
  // BDP bitmaps, SRNIC 12 B, FaSR a 1 B pointer + its 1,600 B pool, GBN nothing.
  virtual MemoryFootprint footprint() const = 0;
  // What this implementation keeps on the NIC beyond the base context, both halves of a QP
  // (the sender's state too) and every shared structure: per QP, the nic_state_bits its
  // requester and responder states report; the like-for-like count.
  virtual MemoryFootprint implemented_footprint() const = 0;
  // True if the SR extensions this engine's packets carry are charged at their lean size.
  virtual bool lean_sr_header() const { return false; }
  // True if ResponderState::pipeline_stall or RequesterState::sack_stall may return more than
  // zero.
  virtual bool stalls_pipeline() const { return false; }
  // The device's clock, for engines that keep statistics over time (FaSR's pool occupancy);
  // it must outlive the engine.
  virtual void set_clock(const world::Scheduler& /*clock*/) {}
  virtual std::unique_ptr<RequesterState> make_requester() = 0;
  virtual std::unique_ptr<ResponderState> make_responder() = 0;
};

enum class EngineKind : uint8_t { gbn, irn, srnic, fasr };
std::string_view to_string(EngineKind kind);
// Parses "gbn", "irn", "srnic" or "fasr"; throws Error naming the choices otherwise.
EngineKind parse_engine_kind(std::string_view text);

struct RecoveryConfig {
  EngineKind kind = EngineKind::gbn;
  // IRN, SRNIC and FaSR: at most this many packets in flight per QP (the paper caps at one BDP).
  uint32_t bdp_packets = 128;
  // IRN and FaSR: RTO_low applies while at most rto_low_threshold packets are in flight (the IRN
  // paper's defaults: 100 us, 320 us, N = 3).
  Time rto_low = Time::us(100);
  Time rto_high = Time::us(320);
  uint32_t rto_low_threshold = 3;
  // GBN: a floor under the QP's own timeout, like a NIC's minimum RTO; zero uses the QP's.
  Time gbn_min_rto = Time::zero();
  // GBN: ConnectX-5's optional lossy-RoCE features (rnic/nic_profile.h). A fixed in-flight
  // window (roce_tx_window_en); 0 is none, the plain GBN NIC.
  uint32_t gbn_tx_window = 0;
  // Adaptive retransmission (roce_adp_retrans_en): the first timeout of a loss episode is this
  // short, and each further timeout without progress doubles it, up to the QP's own timeout.
  // Zero: off, every timeout is the QP's.
  Time gbn_adaptive_rto = Time::zero();
  // SRNIC: the PCIe round trip one host-bitmap query stalls the receive pipeline for (updating
  // RCV-NXT, looking up the PSNs to resend): 1.2 us, the FaSR paper's setting (section V-A).
  Time srnic_bitmap_access = Time::ns(1200);
  // FaSR: the NIC-wide pool of SR state units and bitmap blocks.
  FasrPoolConfig fasr_pool{};
  // FaSR: charge the paper's lean SR extensions (section IV-D, 6 to 14 B per request packet)
  // instead of bifrost's 24 B. Off by default: the 24-B form is what the real runtime sends,
  // and the only one that carries each message's rkey and length for the rights checks of
  // packets that arrive before their message's first; lean is a size model for simulation
  // (wire::sr_extension_size).
  bool lean_sr_header = false;
};

// Throws Error for an invalid configuration (zero BDP cap, zero RTOs).
std::unique_ptr<Engine> make_engine(const RecoveryConfig& config);

}  // namespace bifrost::rnic::recovery
