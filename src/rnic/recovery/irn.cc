#include "bifrost/rnic/recovery/irn.h"

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/psn_bitmap.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
namespace {

// The receiver remembers which PSNs above the expected one arrived, so a retransmission of the
// expected PSN moves it past them at once.
class IrnResponder final : public ResponderState {
 public:
  IrnResponder(uint32_t window, bool host_bitmap, Time access)
      : received_(window), window_(window), host_bitmap_(host_bitmap), access_(access) {}

  Arrival classify(uint32_t psn, uint32_t expected, uint32_t span) override {
    received_.move_to(expected);
    const int32_t d = wire::psn_diff(psn, expected);
    if (d < 0) return Arrival::duplicate;
    if (d == 0) return Arrival::in_order;
    // Out of order, all of it must fit the bitmap (a READ request's responses too).
    if (!received_.in_window(wire::psn_add(psn, span - 1))) return Arrival::drop;
    if (received_.test(psn)) return Arrival::duplicate;
    return Arrival::out_of_order;
  }
  void record(uint32_t psn, uint32_t span) override {
    for (uint32_t i = 0; i < span; ++i) {
      const uint32_t p = wire::psn_add(psn, i);
      if (received_.in_window(p)) received_.set(p);
    }
  }
  uint32_t advance(uint32_t expected, uint32_t span) override {
    uint32_t next = wire::psn_add(expected, span);
    received_.move_to(expected);
    while (received_.in_window(next) && received_.test(next)) next = wire::psn_add(next, 1);
    received_.move_to(next);
    return next;
  }
  Feedback feedback(Arrival arrival) override { return selective_feedback(arrival); }
  // SRNIC's on-NIC share: the bitmap word its posted writes gather and the word's index (a
  // 24-bit PSN's word).
  static constexpr uint64_t kNicWordBits = 64 + 18;
  // IRN: the received bitmap, one bit per PSN in flight; SRNIC: only the word being written
  // (the bitmap is in host memory).
  uint64_t nic_state_bits() const override { return host_bitmap_ ? kNicWordBits : window_; }
  // SRNIC (FaSR paper, sections II and V-D2): recording an out-of-order arrival is a posted
  // write to the host bitmap, nanoseconds for the NIC. Updating RCV-NXT is not: an in-order
  // arrival while out-of-order PSNs are recorded (a retransmission filling the hole) must wait
  // for the host's bitmap query to learn how far RCV-NXT moves, and the pipeline pauses.
  Time pipeline_stall(uint32_t psn, uint32_t expected) override {
    if (!host_bitmap_) return Time::zero();
    if (wire::psn_diff(psn, expected) != 0 || received_.count() == 0) return Time::zero();
    return access_;
  }

 private:
  PsnBitmap received_;
  uint32_t window_;  // one bit per PSN in flight (received_ rounds its words up)
  bool host_bitmap_;
  Time access_;
};

// Loss recovery starts on the first SACK: every PSN below the highest SACKed one that was not
// SACKed is lost and is resent once; it ends when the cumulative ACK passes the PSN that was
// next to send when it started. A lost retransmission is left to the timeout, as in IRN.
class IrnRequester final : public RequesterState {
 public:
  IrnRequester(const RecoveryConfig& config, bool host_bitmap)
      : config_(config),
        host_bitmap_(host_bitmap),
        sacked_(config.bdp_packets),
        resent_(config.bdp_packets) {}

  void on_ack(uint32_t una) override {
    sacked_.move_to(una);
    resent_.move_to(una);
    if (wire::psn_before(scan_, una)) scan_ = una;
    if (recovering_ && !wire::psn_before(una, recovery_end_)) recovering_ = false;
  }
  void on_nak(uint32_t psn, uint32_t snd_max) override { restart(psn, snd_max); }
  void on_sack(uint32_t una, uint32_t sacked, uint32_t snd_max) override {
    on_ack(una);
    if (sacked_.in_window(sacked)) sacked_.set(sacked);
    const uint32_t above = wire::psn_add(sacked, 1);
    if (!recovering_) {
      recovering_ = true;
      recovery_end_ = snd_max;
      scan_ = una;
      highest_ = above;
    } else if (wire::psn_before(highest_, above)) {
      highest_ = above;
    }
  }
  void on_timeout(uint32_t una, uint32_t snd_max) override { restart(una, snd_max); }
  std::optional<uint32_t> next_retransmission(uint32_t una, uint32_t /*snd_max*/) override {
    if (!recovering_) return std::nullopt;
    if (wire::psn_before(scan_, una)) scan_ = una;
    while (wire::psn_before(scan_, highest_)) {
      const uint32_t psn = scan_;
      scan_ = wire::psn_add(scan_, 1);
      if (!sacked_.in_window(psn)) continue;
      if (sacked_.test(psn) || resent_.test(psn)) continue;
      resent_.set(psn);
      return psn;
    }
    return std::nullopt;
  }
  bool may_send_new(uint32_t in_flight) const override { return in_flight < config_.bdp_packets; }
  Time timeout(uint32_t in_flight, Time /*qp_timeout*/) const override {
    return in_flight <= config_.rto_low_threshold ? config_.rto_low : config_.rto_high;
  }
  // SRNIC: a SACK that reveals PSNs neither acknowledged nor SACKed before it (a new hole) has
  // the sender ask the host bitmap which PSNs to resend, and its pipeline pauses for the
  // answer; a SACK that extends the SACKed run is recorded in nanoseconds.
  Time sack_stall(uint32_t una, uint32_t sacked) override {
    if (!host_bitmap_) return Time::zero();
    if (!seen_any_ || wire::psn_before(seen_next_, una)) seen_next_ = una;
    seen_any_ = true;
    const bool new_hole = wire::psn_before(seen_next_, sacked);
    if (!wire::psn_before(sacked, seen_next_)) seen_next_ = wire::psn_add(sacked, 1);
    return new_hole ? config_.srnic_bitmap_access : Time::zero();
  }
  // Beside the two bitmaps: recovering, and three PSNs (recovery end, scan, highest).
  static constexpr uint64_t kRecoveryStateBits = 1 + 3 * 24;
  // The SACKed and resent bitmaps, one bit per PSN in flight each, and the recovery state.
  uint64_t nic_state_bits() const override {
    return 2 * uint64_t{config_.bdp_packets} + kRecoveryStateBits;
  }

 private:
  // Everything from `from` that was not SACKed is resent (a timeout, or a NAK).
  void restart(uint32_t from, uint32_t snd_max) {
    sacked_.move_to(from);
    // The oldest PSN goes again even if SACKed: when the cumulative ACK that would have
    // covered it was lost, its duplicate is what makes the responder ACK again.
    sacked_.clear(from);
    resent_.reset(from);
    recovering_ = true;
    recovery_end_ = snd_max;
    scan_ = from;
    highest_ = snd_max;
  }

  RecoveryConfig config_;
  bool host_bitmap_;
  PsnBitmap sacked_;
  PsnBitmap resent_;
  bool recovering_ = false;
  uint32_t recovery_end_ = 0;
  uint32_t scan_ = 0;
  uint32_t highest_ = 0;
  // SRNIC's view for sack_stall: the PSN after the highest known to have arrived.
  bool seen_any_ = false;
  uint32_t seen_next_ = 0;
};

}  // namespace

IrnEngine::IrnEngine(const RecoveryConfig& config, bool bitmap_in_host_memory)
    : config_(config), host_bitmap_(bitmap_in_host_memory) {
  if (config.bdp_packets == 0 || config.bdp_packets > (1u << 22)) {
    throw Error("recovery: bdp_packets {} is invalid: use 1..{}", config.bdp_packets, 1u << 22);
  }
  if (config.rto_low <= Time::zero() || config.rto_high < config.rto_low) {
    throw Error("recovery: need 0 < rto_low <= rto_high (got {} us and {} us)",
                config.rto_low.microseconds(), config.rto_high.microseconds());
  }
}

MemoryFootprint IrnEngine::implemented_footprint() const {
  const IrnRequester sender(config_, host_bitmap_);
  const IrnResponder receiver(config_.bdp_packets, host_bitmap_, config_.srnic_bitmap_access);
  return {bytes_of_bits(sender.nic_state_bits() + receiver.nic_state_bits()), 0};
}

MemoryFootprint IrnEngine::footprint() const {
  if (host_bitmap_) return {12, 0};
  return {20 + 5 * ((uint64_t{config_.bdp_packets} + 7) / 8), 0};
}

std::unique_ptr<RequesterState> IrnEngine::make_requester() {
  return std::make_unique<IrnRequester>(config_, host_bitmap_);
}

std::unique_ptr<ResponderState> IrnEngine::make_responder() {
  return std::make_unique<IrnResponder>(config_.bdp_packets, host_bitmap_,
                                        config_.srnic_bitmap_access);
}

}  // namespace bifrost::rnic::recovery
