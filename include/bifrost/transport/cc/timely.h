#pragma once
// TIMELY (Mittal et al., SIGCOMM 2015) as a baseline for RoGUE's evaluation (§5.7): a rate
// from the RTT's gradient, applied to the QP's NIC rate limiter. One update per RTT sample
// (TIMELY updates once per completion; the transport's ACK carries one sample per completion
// group). Algorithm 1 of the TIMELY paper:
//
//   new_rtt_diff = rtt - prev_rtt;  rtt_diff = (1 - alpha) * rtt_diff + alpha * new_rtt_diff
//   gradient = rtt_diff / min_rtt
//   rtt < t_low:   rate += delta                       (additive increase)
//   rtt > t_high:  rate *= 1 - beta * (1 - t_high / rtt)
//   gradient <= 0: rate += N * delta, N = 5 after hai_threshold such updates in a row, else 1
//   otherwise:     rate *= 1 - beta * gradient
//
// Defaults are the TIMELY paper's (alpha 0.875, beta 0.8, t_low 50 us, t_high 500 us, min RTT
// 20 us, HAI after 5), as ns3-rdma's TIMELY that RoGUE's authors used also sets them (it never
// enters HAI, N stays 1). The paper's delta of 10 Mb/s is for 10 Gb/s NICs; ours is a
// thousandth of the line rate (10 Mb/s at 10 Gb/s, 40 Mb/s at RoGUE's simulated 40 Gb/s):
// scaled, and a path field. The floor is ns3-rdma's, 1% of the line rate: a gradient above
// 1 / beta would take the rate below zero, and at a few Mb/s the samples that could raise it
// again come milliseconds apart.
//
// TIMELY starts at line rate (it has no slow start: the RoGUE paper's point in §5.7), keeps its
// rate on losses and timeouts (it assumes PFC; the reliability layer repairs), and has no window
// of its own: like cc/dcqcn, the window is twice what the rate sends in one RTT (the larger of
// the base RTT and the least RTT measured), so the reliability layer has a bound.
#include <cstdint>
#include <optional>

#include "bifrost/transport/cc/congestion_control.h"

namespace bifrost::transport {

struct TimelyParams {
  double alpha = 0.875;  // EWMA weight of the newest RTT difference
  double beta = 0.8;     // multiplicative decrease factor
  Time t_low = Time::us(50);
  Time t_high = Time::us(500);
  Time min_rtt = Time::us(20);      // normalises the gradient
  uint32_t hai_threshold = 5;       // gradient <= 0 updates in a row before hyperactive increase
  uint32_t hai_factor = 5;          // N in hyperactive increase
  Rate min_rate = Rate::Mbps(100);  // path: line rate / 100
  Rate additive_increase = Rate::Mbps(10);  // path: line rate / 1000
  Rate line_rate = Rate::Gbps(10);          // path
  Time base_rtt = Time::us(50);             // path: sizes the window
  uint32_t mss = 4096;                      // path: the least window

  // Throws Error for alpha or beta outside (0, 1], t_low > t_high, non-positive times, rates
  // or mss, a zero HAI threshold or factor, or a minimum rate above the line rate.
  void validate() const;
};

// The paper's constants with delta = line rate / 1000, a floor of line rate / 100, and the
// path's rate, RTT and unit size.
TimelyParams timely_params_for(const CcParams& params);

class Timely final : public CongestionControl {
 public:
  explicit Timely(const TimelyParams& params);
  std::string_view name() const override { return "timely"; }
  void on_ack(const AckEvent& event) override;
  void on_loss(Time) override {}
  void on_timeout(Time) override {}
  uint64_t window_bytes() const override;
  // nullopt at line rate.
  std::optional<Rate> pacing_rate() const override;

  Rate rate() const { return rate_; }
  double rtt_diff_us() const { return rtt_diff_us_; }

 private:
  void set_rate(double bps);

  TimelyParams params_;
  Rate rate_;
  Time prev_rtt_;
  bool have_prev_ = false;
  double rtt_diff_us_ = 0;
  uint32_t negative_run_ = 0;  // updates in a row with gradient <= 0
  Time least_rtt_ = Time::max();
};

}  // namespace bifrost::transport
