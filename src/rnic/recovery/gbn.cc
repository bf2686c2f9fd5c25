// Go-back-N as commodity RNICs (ConnectX-4/5/6) do it. Pinned semantics, documented in
// docs/rnic.md:
// - the responder drops every packet after a gap and sends one NAK (PSN sequence error) per
//   loss episode; the episode ends when the expected PSN arrives;
// - the requester goes back to the NAK'd PSN and resends everything from there;
// - on a timeout it goes back to the oldest unacknowledged PSN; the timeout is the QP's own
//   (4.096 us * 2^timeout), optionally floored by gbn_min_rto;
// - no window: the requester sends as fast as the NIC may.
// ConnectX-5's lossy features change two of these when enabled (RecoveryConfig): a fixed window
// of packets in flight, and an adaptive timeout that starts short and doubles per timeout
// without progress (back to the short one at the next ACK that moves una).
#include "bifrost/rnic/recovery/gbn.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
namespace {

class GbnResponder final : public ResponderState {
 public:
  Arrival classify(uint32_t psn, uint32_t expected, uint32_t /*span*/) override {
    const int32_t d = wire::psn_diff(psn, expected);
    if (d < 0) return Arrival::duplicate;
    if (d == 0) {
      nak_sent_ = false;
      return Arrival::in_order;
    }
    return Arrival::drop;
  }
  void record(uint32_t /*psn*/, uint32_t /*span*/) override {}
  uint32_t advance(uint32_t expected, uint32_t span) override {
    return wire::psn_add(expected, span);
  }
  Feedback feedback(Arrival arrival) override {
    switch (arrival) {
      case Arrival::in_order:
      case Arrival::duplicate:
        return Feedback::ack;
      case Arrival::drop:
        if (nak_sent_) return Feedback::none;
        nak_sent_ = true;
        return Feedback::nak_sequence;
      case Arrival::out_of_order:
        break;
    }
    return Feedback::none;
  }
  // The expected PSN and the NAK flag are the base context's.
  uint64_t nic_state_bits() const override { return 0; }

 private:
  bool nak_sent_ = false;
};

class GbnRequester final : public RequesterState {
 public:
  explicit GbnRequester(const RecoveryConfig& config)
      : min_rto_(config.gbn_min_rto),
        tx_window_(config.gbn_tx_window),
        adaptive_rto_(config.gbn_adaptive_rto) {}

  void on_ack(uint32_t una) override {
    if (rewinding_ && wire::psn_diff(una, resend_) > 0) resend_ = una;
    timeouts_in_a_row_ = 0;
  }
  void on_nak(uint32_t psn, uint32_t snd_max) override { go_back(psn, snd_max); }
  void on_sack(uint32_t una, uint32_t /*sacked*/, uint32_t snd_max) override {
    go_back(una, snd_max);
  }
  void on_timeout(uint32_t una, uint32_t snd_max) override {
    if (timeouts_in_a_row_ < kMaxDoublings) ++timeouts_in_a_row_;
    go_back(una, snd_max);
  }
  std::optional<uint32_t> next_retransmission(uint32_t /*una*/, uint32_t snd_max) override {
    if (!rewinding_) return std::nullopt;
    if (wire::psn_diff(snd_max, resend_) <= 0) {
      rewinding_ = false;
      return std::nullopt;
    }
    const uint32_t psn = resend_;
    resend_ = wire::psn_add(resend_, 1);
    return psn;
  }
  bool may_send_new(uint32_t in_flight) const override {
    return !rewinding_ && (tx_window_ == 0 || in_flight < tx_window_);
  }
  Time timeout(uint32_t /*in_flight*/, Time qp_timeout) const override {
    const Time hardware = std::max(qp_timeout, min_rto_);
    if (adaptive_rto_ == Time::zero()) return hardware;
    return std::min(hardware, adaptive_rto_ * (int64_t{1} << timeouts_in_a_row_));
  }
  // The rewind flag and PSN (and ConnectX-5's count of timeouts in a row) are what a go-back-N
  // NIC's base context holds, the baseline the other engines are counted against.
  uint64_t nic_state_bits() const override { return 0; }

 private:
  void go_back(uint32_t psn, uint32_t snd_max) {
    if (wire::psn_diff(snd_max, psn) <= 0) return;
    rewinding_ = true;
    resend_ = psn;
  }

  // 2^20 times any sensible first timeout exceeds every QP timeout; the shift stays defined.
  static constexpr uint32_t kMaxDoublings = 20;

  Time min_rto_;
  uint32_t tx_window_;
  Time adaptive_rto_;
  uint32_t timeouts_in_a_row_ = 0;
  bool rewinding_ = false;
  uint32_t resend_ = 0;
};

}  // namespace

GbnEngine::GbnEngine(const RecoveryConfig& config) : config_(config) {
  if (config.gbn_adaptive_rto < Time::zero() || config.gbn_adaptive_rto > Time::s(1)) {
    throw Error("recovery: the adaptive first timeout must be 0 (off) to 1 s (got {} us)",
                config.gbn_adaptive_rto.picoseconds() / 1e6);
  }
}

MemoryFootprint GbnEngine::implemented_footprint() const {
  return {bytes_of_bits(GbnRequester(config_).nic_state_bits() + GbnResponder().nic_state_bits()),
          0};
}

std::unique_ptr<RequesterState> GbnEngine::make_requester() {
  return std::make_unique<GbnRequester>(config_);
}

std::unique_ptr<ResponderState> GbnEngine::make_responder() {
  return std::make_unique<GbnResponder>();
}

}  // namespace bifrost::rnic::recovery
