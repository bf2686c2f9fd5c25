#pragma once
// IRN (Mittal et al., SIGCOMM 2018): selective repeat with SACKs, a BDP cap on packets in
// flight and two timeouts (RTO_low while few packets are in flight, RTO_high otherwise).
// SRNIC (Wang et al., NSDI 2023) shares IRN's protocol but keeps its bitmaps in host memory:
// recording out-of-order PSNs and SACKs takes nanoseconds, but updating RCV-NXT over recorded
// PSNs and looking up the PSNs to resend wait for the host, and the NIC's receive pipeline
// pauses for that PCIe round trip (FaSR paper, sections II and V-D2).
#include "bifrost/rnic/recovery/engine.h"

namespace bifrost::rnic::recovery {

class IrnEngine final : public Engine {
 public:
  // Throws Error for a zero BDP cap or zero timeouts.
  IrnEngine(const RecoveryConfig& config, bool bitmap_in_host_memory);
  std::string_view name() const override { return host_bitmap_ ? "srnic" : "irn"; }
  bool selective() const override { return true; }
  // IRN: 20 B of state + five BDP-sized bitmaps per QP; SRNIC: 12 B per QP (FaSR paper, V-A).
  MemoryFootprint footprint() const override;
  // What the engine below holds: the receiver's bitmap (on the NIC for IRN; in host memory
  // for SRNIC, which keeps one 64-bit word of it and that word's index), and the sender's two
  // bitmaps (SACKed, resent) and recovery state, on the NIC for both.
  MemoryFootprint implemented_footprint() const override;
  bool stalls_pipeline() const override { return host_bitmap_; }
  std::unique_ptr<RequesterState> make_requester() override;
  std::unique_ptr<ResponderState> make_responder() override;

 private:
  RecoveryConfig config_;
  bool host_bitmap_;
};

}  // namespace bifrost::rnic::recovery
