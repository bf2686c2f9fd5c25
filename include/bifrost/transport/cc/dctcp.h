#pragma once
// DCTCP's window algorithm (Alizadeh et al., SIGCOMM 2010; RFC 8257) as a congestion control of
// the transport, the "DCTCP-like" baseline of RoGUE's evaluation (§5.5, §5.6). It is DCTCP's
// algorithm over the soft NIC, not kernel TCP: no TCP segments, no delayed ACKs, no TSO.
//
// The ECN echo path: the switch marks CE; the receiver's software ACK carries an ECN echo for
// the WQEs it acknowledges (Bifröst UC's software ACKs; RC hardware ACKs do not carry marks to
// software, so the kind needs bifrost-uc, as dcqcn does). Each ACK reports its acknowledged
// bytes and whether they were marked.
//
// - alpha: once per observation window (a window's worth of acknowledged bytes, counted from
//   the window in force when it began), alpha = (1 - g) * alpha + g * F, F the marked fraction
//   of the window's bytes; alpha starts at 1 (Linux's dctcp_alpha_on_init).
// - Marks: the first marked ACK of an observation window cuts the window to
//   cwnd * (1 - alpha / 2), at once (Linux enters CWR and reduces over an RTT; at most once per
//   window either way), and ends slow start.
// - Growth: slow start (+ acknowledged bytes) below ssthresh, then + mss * acked / cwnd.
// - Loss: as a mark (cwnd * (1 - alpha / 2), ssthresh with it), once per observation window.
// - Timeout: ssthresh = cwnd * (1 - alpha / 2), cwnd = min window, slow start again.
#include <cstdint>

#include "bifrost/transport/cc/congestion_control.h"

namespace bifrost::transport {

struct DctcpParams {
  double g = 1.0 / 16;                      // alpha's gain (DCTCP's and Linux's default)
  uint32_t initial_window_packets = 10;     // Linux's initial window
  uint32_t min_window_packets = 2;          // Linux's floor after a cut
  uint32_t mss = 4096;                      // path: the unit size
  uint64_t max_window_bytes = 4 * 625'000;  // path: four BDPs

  // Throws Error for g outside (0, 1], a zero mss or window, or min > initial window.
  void validate() const;
};

DctcpParams dctcp_params_for(const CcParams& params);

class Dctcp final : public CongestionControl {
 public:
  explicit Dctcp(const DctcpParams& params);
  std::string_view name() const override { return "dctcp"; }
  void on_ack(const AckEvent& event) override;
  void on_loss(Time now) override;
  void on_timeout(Time now) override;
  uint64_t window_bytes() const override { return static_cast<uint64_t>(cwnd_); }

  double alpha() const { return alpha_; }
  bool in_slow_start() const { return cwnd_ < ssthresh_; }

 private:
  void cut();
  void clamp();

  DctcpParams params_;
  double cwnd_;
  double ssthresh_;
  double alpha_ = 1;
  uint64_t window_acked_ = 0;   // bytes acknowledged in this observation window
  uint64_t window_marked_ = 0;  // of them, marked
  uint64_t window_end_;         // bytes the observation window lasts
  bool cut_this_window_ = false;
};

}  // namespace bifrost::transport
