#pragma once
// TCP Vegas as RoGUE uses it (§3.3): one RTT sample per batch, the window moved by one packet
// per sample from diff = cwnd · (RTT − base) / RTT, slow start from 10 packets, and a pacing
// rate cwnd / base_rtt for the QP's NIC rate limiter, moved by at most a step per update.
//
// Readings of what the paper leaves open (each a parameter):
// - diff counts packets of `packet_bytes` payload (one MTU packet's payload); steps are one
//   such packet.
// - alpha/beta: the paper sets α = 4, β = 2 (§4) with "decrease if diff > β, increase if
//   diff < α", which overlap for 2 < diff < 4. By default we read them as Linux Vegas does
//   (α < β: increase below α = 2, decrease above β = 4, hold between); `literal` applies the
//   paper's numbers and rules as written, the decrease winning where both hold (it is the
//   first rule the paper states, and the congestion signal), so there is no hold band at all.
// - base RTT: the lowest sample, never below `base_rtt_floor` (the paper's footnote 1).
// - Slow start: doubling once per RTT, read as "a sample whose batch started after the last
//   doubling", with the batch's start estimated as now − rtt: that is now − last doubling ≥
//   rtt (both readings of "per RTT" agree then). It ends at the first sample with diff > β,
//   where the window falls to min(cwnd, cwnd · base / RTT + 1 packet) (Linux Vegas's exit:
//   the window the base RTT would carry, plus one), or at a loss or timeout.
// - Loss (UC: a later batch's sample first): the window times `loss_decrease` (0.5, ours).
// - Timeout (UC: every outstanding sample lost): the initial window and slow start again (ours:
//   the delay check still ends it at the first queue it sees).
// - Pacing: the target is cwnd / base_rtt in *wire* bytes (the limiter meters frames): cwnd ·
//   (packet_bytes + header_bytes) / packet_bytes. Every update (a sample, a loss, a timeout)
//   moves the rate toward the target by at most `rate_step`, never above the line rate; it
//   starts at the line rate (the initial window goes at line rate). Until a sample gives a base
//   RTT there is no target and the rate stays.
// - Pacing basis (`rate_basis`): §3.3 writes the limit as cwnd / base_rtt and gives its purpose
//   in the next paragraph, "ensuring that no more than cwnd of data is injected into the network
//   per RTT". The two agree only without a queue. When cwnd is below RoGUE's two enqueued
//   batches the window cannot bind (§3.1), the limiter alone sets the rate, and at cwnd /
//   base_rtt a flow injects cwnd · RTT / base per RTT: diff ≤ cwnd keeps every window above β
//   packets, so no rate goes below β · MTU / base_rtt (5.5 Gb/s at 2 KB and 6 us), whatever
//   the queue (experiments/rogue-parking-lot, "the Vegas floor"). `current_rtt` paces at
//   cwnd / RTT (the last sample, never below the base): cwnd per RTT, the rate §5.5 calls
//   RoGUE's "sending rate (cwnd/RTT)", and the same as cwnd / base_rtt on an empty path.
#include <cstdint>

#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/wire/codec.h"
#include "bifrost/wire/ethernet.h"
#include "bifrost/wire/icrc.h"
#include "bifrost/wire/ip_udp.h"

namespace bifrost::transport {

// Bytes a RoCEv2 MTU packet (a WRITE/SEND middle: BTH only) costs on the wire besides its
// payload, as the NIC's rate limiter meters it: Ethernet header, IPv4, UDP, BTH, ICRC. The
// limiter counts the frame without FCS, preamble and gap (rnic/device_data_path.cc), so these
// are left out to keep the conversion exact against it. First and last packets carry a RETH
// or ImmDt more (16 or 4 bytes): at most 20 bytes per verb, ignored.
inline constexpr uint32_t kRoceV2MeteredHeaderBytes = static_cast<uint32_t>(
    wire::kEthernetHeaderSize + wire::kIpUdpHeaderSize + wire::kBthSize + wire::kIcrcSize);

// The paper's numbers (§4), used as written when VegasParams::literal is set.
inline constexpr double kRoguePaperAlpha = 4;
inline constexpr double kRoguePaperBeta = 2;

// What the pacing rate divides the window by (see above).
enum class VegasRateBasis : uint8_t { base_rtt, current_rtt };

struct VegasParams {
  uint32_t packet_bytes = 4096;                       // payload of one MTU packet
  uint32_t header_bytes = kRoceV2MeteredHeaderBytes;  // wire bytes per packet besides payload
  double alpha = 2;                                   // increase while diff < alpha (packets)
  double beta = 4;                                    // decrease while diff > beta (packets)
  bool literal = false;  // the paper's α = 4, β = 2 and rules as written (see above)
  uint32_t initial_window_packets = 10;  // Linux's, as the paper says
  uint32_t min_window_packets = 2;       // Linux Vegas's floor
  uint64_t max_window_bytes = uint64_t{64} << 20;
  double loss_decrease = 0.5;  // window factor per lost batch (ours)
  Time base_rtt_floor = Time::zero();
  Rate line_rate = Rate::Gbps(10);
  Rate rate_step = Rate::Gbps(1);                        // the paper's bound on one rate change
  VegasRateBasis rate_basis = VegasRateBasis::base_rtt;  // §3.3's formula as written

  // Throws Error for a zero packet, window bounds out of order, alpha > beta (outside literal
  // mode), a decrease factor outside (0, 1), a negative floor or a non-positive rate or step.
  void validate() const;
};

// Packet size, line rate, a window cap of four BDPs and a rate step of a tenth of the line rate
// (the paper's 1 Gb/s at 10 Gb/s) from the connection's parameters.
VegasParams vegas_params_for(const CcParams& params);

enum class VegasStep { increase, hold, decrease };

// cwnd · (rtt − base) / rtt in packets of `packet_bytes`; 0 when rtt <= base.
double vegas_diff(uint64_t cwnd_bytes, Time rtt, Time base, uint32_t packet_bytes);
// The congestion-avoidance decision for `diff` under `params`' reading of alpha and beta.
VegasStep vegas_decision(double diff, const VegasParams& params);
// The pacing target for a window: cwnd / base_rtt, converted to wire bytes.
Rate vegas_target_rate(uint64_t cwnd_bytes, Time base_rtt, const VegasParams& params);
// `current` moved toward `target` by at most `step`, never above `line_rate`.
Rate step_rate_toward(Rate current, Rate target, Rate step, Rate line_rate);

class Vegas final : public CongestionControl {
 public:
  explicit Vegas(const VegasParams& params);
  std::string_view name() const override { return "vegas"; }
  // One call with an RTT sample per batch; calls without one change nothing.
  void on_ack(const AckEvent& event) override;
  // One call per lost batch (the caller reports each loss once).
  void on_loss(Time now) override;
  void on_timeout(Time now) override;
  uint64_t window_bytes() const override { return cwnd_; }
  // nullopt while the rate is the line rate (nothing to limit), as cc/dcqcn does.
  std::optional<Rate> pacing_rate() const override;

  Rate rate() const { return rate_; }
  bool in_slow_start() const { return slow_start_; }
  // Zero before the first sample.
  Time base_rtt() const { return base_rtt_; }
  // What the pacing target divides the window by: the base RTT, or the last sample.
  Time pacing_rtt() const;

 private:
  void end_slow_start(Time rtt);
  void set_window(uint64_t bytes);
  void update_rate();

  VegasParams params_;
  uint64_t cwnd_;
  bool slow_start_ = true;
  bool doubled_ = false;  // a doubling happened (last_doubling_ is meaningful)
  Time last_doubling_;
  Time base_rtt_;
  Time last_rtt_;
  Rate rate_;
};

}  // namespace bifrost::transport
