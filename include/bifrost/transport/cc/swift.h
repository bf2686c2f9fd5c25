#pragma once
// A Swift-like delay-based AIMD window, as Bifröst uses it: additive increase while the RTT is
// below a target, a multiplicative decrease proportional to the excess delay at most once per
// RTT, and, unlike Swift, a drop to the minimum window on any loss or timeout (the paper's
// choice for lossy fabrics, where a loss means the queue overflowed).
#include "bifrost/transport/cc/congestion_control.h"

namespace bifrost::transport {

struct SwiftParams {
  Time target_delay = Time::us(50);  // the base RTT: no queuing allowed above it ...
  Time target_slack = Time::us(10);  // ... beyond this much
  double additive_increase = 1.0;    // windows of mss per RTT
  double beta = 0.8;                 // decrease per unit of relative excess delay
  double max_decrease = 0.5;         // at most halve per RTT
  uint64_t min_window = 4096;
  uint64_t max_window = 2 * 625'000;
  uint64_t initial_window = 625'000;
  uint32_t mss = 4096;
  // On a loss or timeout: true drops to min_window (Bifröst's choice); false decreases by
  // max_decrease at most once per RTT, as the original Swift does on a retransmission.
  bool loss_to_minimum = true;
  // The target never sits below the smallest RTT the connection has measured: a configured
  // base RTT under the path's real one (a software data path, a longer route) would otherwise
  // keep every sample "above target" and the window at its minimum forever.
  bool target_follows_min_rtt = true;
  // A loss cuts the window only while the latest RTT sample shows a queue (above the target): a
  // loss seen with the RTT at the target is taken for corruption, resent without a cut. Full
  // queues drop packets only after the RTT has risen, so congestion still cuts; timeouts always
  // cut. false: every loss cuts (the paper's rule; docs/transport.md, "Congestion control").
  bool loss_needs_queuing = false;

  // Throws Error for a non-positive target, mss or increase, a negative slack or beta, a
  // decrease outside (0, 1], or windows not ordered min <= initial <= max.
  void validate() const;
};

// The defaults for a path: target = base RTT, window up to 2 BDP, starting at one BDP.
SwiftParams swift_params_for(const CcParams& params);

class Swift final : public CongestionControl {
 public:
  explicit Swift(const SwiftParams& params);
  std::string_view name() const override { return params_.loss_to_minimum ? "swift" : "swift-md"; }
  void on_ack(const AckEvent& event) override;
  void on_loss(Time now) override;
  void on_timeout(Time now) override;
  uint64_t window_bytes() const override { return static_cast<uint64_t>(window_); }

 private:
  void clamp();
  Time target() const;
  void cut(Time now);  // a loss or timeout that counts

  SwiftParams params_;
  double window_;
  Time last_decrease_ = Time::zero();
  Time last_rtt_ = Time::zero();
  Time min_rtt_ = Time::max();
  bool decreased_ = false;
};

}  // namespace bifrost::transport
