#pragma once
// A Swift-like delay-based AIMD window, as Bifröst uses it: additive increase while the RTT is
// below a target, a multiplicative decrease proportional to the excess delay at most once per
// RTT, and, unlike Swift, a drop to the minimum window on any loss or timeout (the paper's
// choice for lossy fabrics, where a loss means the queue overflowed). Optionally a loss gate
// (cc/loss_gate.h) spares the window the losses that random corruption explains.
#include <optional>

#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/transport/cc/loss_gate.h"

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
  // The loss gate (ours; cc/loss_gate.h): a loss cuts the window only if the RTT shows a queue
  // (as loss_needs_queuing) or the connection's loss events per delivered packet exceed
  // random_loss_tolerance; a loss with neither sign is resent without a cut; timeouts always
  // cut. It supersedes loss_needs_queuing, which lacks the loss-rate sign: an incast whose
  // thousands of one-unit windows hold stale RTT samples kept its windows up under overflow.
  // false: loss_needs_queuing decides (the paper, TransportConfig::paper(): every loss cuts).
  bool loss_gate = true;
  double random_loss_tolerance = 0.05;  // packet loss rate taken for corruption, at most
  double loss_gate_memory = 128;        // delivered packets the loss rate is averaged over
  uint32_t packet_bytes = 4096;         // path: the MTU (delivered bytes / MTU = packets)

  // Throws Error for a non-positive target, mss or increase, a negative slack or beta, a
  // decrease outside (0, 1], windows not ordered min <= initial <= max, or (loss_gate) a
  // tolerance outside [0, 1) or a memory of at most one packet.
  void validate() const;
};

// The defaults for a path: target = base RTT, window up to 2 BDP, starting at one BDP; the
// loss gate counts packets of the path's MTU.
SwiftParams swift_params_for(const CcParams& params);

class Swift final : public CongestionControl {
 public:
  explicit Swift(const SwiftParams& params);
  std::string_view name() const override { return params_.loss_to_minimum ? "swift" : "swift-md"; }
  void on_ack(const AckEvent& event) override;
  void on_loss(Time now) override;
  void on_timeout(Time now) override;
  uint64_t window_bytes() const override { return static_cast<uint64_t>(window_); }
  // The loss gate's loss events per delivered packet; 0 without the gate.
  double gated_loss_rate() const { return gate_ ? gate_->loss_rate() : 0; }

 private:
  void clamp();
  Time target() const;
  void cut(Time now);       // a loss or timeout that counts
  bool queue_seen() const;  // the latest RTT sample is above the target (or there is none)

  SwiftParams params_;
  double window_;
  Time last_decrease_ = Time::zero();
  Time last_rtt_ = Time::zero();
  Time min_rtt_ = Time::max();
  bool decreased_ = false;
  std::optional<LossGate> gate_;  // set when params.loss_gate
};

}  // namespace bifrost::transport
