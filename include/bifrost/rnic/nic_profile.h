#pragma once
// NIC generations for heterogeneous clusters: a ConnectX-4-like and a ConnectX-5-like profile
// of the soft RNIC, and the ConnectX-3 Pro that RoGUE ran on (`cx3pro`). Each behavioural
// difference between the two is a named field here, with the reason for its values, so an
// experiment can say exactly where a gap between the generations comes from and sweep it
// (docs/rnic.md, "NIC profiles").
//
// Both generations run go-back-N and DCQCN in hardware. What differs:
// - DCQCN's rate-increase constants. No public source gives per-generation firmware defaults;
//   the CX-4 profile keeps the mlx5 defaults (RPG_TIME_RESET 300 us, RPG_BYTE_RESET 32767 B),
//   the CX-5 profile the DCQCN paper's recommendation (timer 55 us, byte counter 10 MB), as a
//   cluster that tunes its newer NICs would. That assignment is our assumption; the experiment
//   that uses it (experiments/bifrost-hybrid-cluster) sweeps the values.
// - Loss: the CX-4 profile needs a lossless fabric (go-back-N with a long timeout, nothing
//   else); the CX-5 profile may enable the lossy-RoCE features of the ROCE_ACCL register: a
//   fixed in-flight window (roce_tx_window_en), slow restart (roce_slow_restart_en) and adaptive
//   retransmission (roce_adp_retrans_en). They are off unless asked for.
// - DCQCN's reaction points (CX-4 only, calibrated): the CX-4 profile paces its QPs with
//   kConnectX4DcqcnReactionGroups DCQCN reaction points, each driving one rate limiter shared by
//   the QPs hashed to it, so a CNP from one congested destination slows the QPs to others. Why
//   this and not something else: the Bifröst paper (§4.5) finds the CX-4 deficit only with the
//   NICs' own control path (perftest 28 vs 41 Gb/s, ARDMA 33.2 vs 41.3), not with Bifröst's
//   software CC (NIC DCQCN off: 37.1 vs 36.6), and not removed by tuning DCQCN's CNP interval and
//   rate-decrease period or PCIe: a limit of how CX-4 applies DCQCN, not of its constants or its
//   data path. In our full mesh neither the constants nor RoGUE's 160 KB rate-change delay (even
//   4 MB) make any gap; sharing reaction points across destinations does, and its one constant
//   is calibrated to the paper's 21.8%. No public source gives CX-4's number of reaction points
//   or limiters; other mechanisms that would also act only with NIC DCQCN on (a rate limiter's
//   granularity, a CNP-processing budget) are equally unmeasured (docs/rnic.md). Unlike the
//   paper's CX-4, the model's gap does respond to tuning: a 50 us rate-decrease period closes it.
//
// The ConnectX-3 Pro (RoGUE's testbed, §3.3, §4, §5.2): a 10 Gb/s port; path MTU 2048, what
// perftest uses on it (ours from the issue; the NIC takes up to 4096); no per-QP rate limiters
// but 8 per-priority ones, whose new rate takes up to 160 KB to apply (RoGUE measured it on
// ConnectX-3 and -4; we count 160,000 bytes); go-back-N that, after retransmitting a verb, sends
// nothing of the next verb until that verb is acknowledged (§5.2). Assumed, since no source
// gives them: DCQCN's constants are the mlx5 defaults (as cx4; the paper says only that the NIC
// supports DCQCN), it has none of CX-5's lossy features, and so, like cx4, it needs a lossless
// fabric unless a transport such as RoGUE keeps losses rare and recovers from them itself.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/device.h"

namespace bifrost::rnic {

// ConnectX-5's optional lossy-RoCE features, each with the value it uses when on.
// The CX-4 profile's DCQCN reaction points (DeviceConfig::dcqcn_reaction_groups), calibrated.
inline constexpr size_t kConnectX4DcqcnReactionGroups = 5;

struct LossyFeatures {
  bool tx_window = false;  // at most tx_window_packets in flight per QP
  uint32_t tx_window_packets = 128;
  bool slow_restart = false;  // a retransmission timeout cuts the DCQCN rate (needs DCQCN)
  bool adaptive_retransmission = false;  // first timeout adaptive_rto, doubling per timeout
  Time adaptive_rto = Time::us(16);

  bool any() const { return tx_window || slow_restart || adaptive_retransmission; }
};

struct NicProfile {
  std::string name;  // "cx3pro", "cx4" or "cx5"
  // DCQCN rate-increase timer T (mlx5 RPG_TIME_RESET) and byte counter B (RPG_BYTE_RESET).
  Time dcqcn_increase_period;
  uint64_t dcqcn_increase_bytes = 0;
  // Without PFC a loss costs go-back-N a whole QP timeout: the CX-4 profile is for lossless
  // fabrics only, and a simulation warns when it runs without PFC.
  bool needs_lossless = false;
  // Whether the lossy features exist on this generation, and which are enabled.
  bool has_lossy_features = false;
  LossyFeatures lossy{};
  // The responder's ACK delay bound (DataPathConfig::ack_delay) on this generation; unset keeps
  // the device's. No public source gives either generation's value, so neither profile sets one.
  std::optional<Time> ack_delay;
  // Set by cx3pro only; unset or zero keeps the device's own.
  // The port speed, for whoever builds the link and the transport's line rate (a device has
  // none: its port's link sets it); apply() does not use it.
  std::optional<Rate> line_rate;
  std::optional<uint32_t> max_mtu;   // DeviceConfig::max_mtu: the largest path MTU a QP may use
  size_t per_priority_limiters = 0;  // DeviceConfig::per_priority_limiters
  std::optional<Bytes> rate_change_delay;  // RateLimiterConfig::change_delay
  // DeviceConfig::dcqcn_reaction_groups: DCQCN reaction points (each pacing one limiter) that
  // the NIC's QPs share; 0, one per QP. Set by cx4 only, calibrated (see connectx4_profile).
  size_t dcqcn_reaction_groups = 0;
  // DataPathConfig::serialize_verbs_after_retransmission: ConnectX-3 Pro's go-back-N.
  bool serialize_verbs_after_retransmission = false;

  // Sets the device's engine to go-back-N, the DCQCN constants (when DCQCN is on), the
  // enabled lossy features and whatever of the fields above is set. Throws Error for a lossy
  // feature on a profile without them, slow restart without DCQCN, or a zero window, timer or byte
  // counter.
  void apply(DeviceConfig& device) const;
};

NicProfile connectx3pro_profile();
NicProfile connectx4_profile();
NicProfile connectx5_profile();
// "cx3pro", "cx4" or "cx5"; throws Error naming the choices otherwise.
NicProfile find_nic_profile(std::string_view name);

}  // namespace bifrost::rnic
