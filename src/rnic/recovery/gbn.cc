// Go-back-N as commodity RNICs (ConnectX-4/5/6) do it. Pinned semantics, documented in
// docs/rnic.md:
// - the responder drops every packet after a gap and sends one NAK (PSN sequence error) per
//   loss episode; the episode ends when the expected PSN arrives;
// - the requester goes back to the NAK'd PSN and resends everything from there;
// - on a timeout it goes back to the oldest unacknowledged PSN; the timeout is the QP's own
//   (4.096 us * 2^timeout), optionally floored by gbn_min_rto;
// - no window: the requester sends as fast as the NIC may.
#include "bifrost/rnic/recovery/gbn.h"

#include <algorithm>

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

 private:
  bool nak_sent_ = false;
};

class GbnRequester final : public RequesterState {
 public:
  explicit GbnRequester(Time min_rto) : min_rto_(min_rto) {}

  void on_ack(uint32_t una) override {
    if (rewinding_ && wire::psn_diff(una, resend_) > 0) resend_ = una;
  }
  void on_nak(uint32_t psn, uint32_t snd_max) override { go_back(psn, snd_max); }
  void on_sack(uint32_t una, uint32_t /*sacked*/, uint32_t snd_max) override {
    go_back(una, snd_max);
  }
  void on_timeout(uint32_t una, uint32_t snd_max) override { go_back(una, snd_max); }
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
  bool may_send_new(uint32_t /*in_flight*/) const override { return !rewinding_; }
  Time timeout(uint32_t /*in_flight*/, Time qp_timeout) const override {
    return std::max(qp_timeout, min_rto_);
  }

 private:
  void go_back(uint32_t psn, uint32_t snd_max) {
    if (wire::psn_diff(snd_max, psn) <= 0) return;
    rewinding_ = true;
    resend_ = psn;
  }

  Time min_rto_;
  bool rewinding_ = false;
  uint32_t resend_ = 0;
};

}  // namespace

std::unique_ptr<RequesterState> GbnEngine::make_requester() {
  return std::make_unique<GbnRequester>(config_.gbn_min_rto);
}

std::unique_ptr<ResponderState> GbnEngine::make_responder() {
  return std::make_unique<GbnResponder>();
}

}  // namespace bifrost::rnic::recovery
