#pragma once
// NIC generations for heterogeneous clusters: a ConnectX-4-like and a ConnectX-5-like profile
// of the soft RNIC. Each behavioural difference between the two is a named field here, with the
// reason for its values, so an experiment can say exactly where a gap between the generations
// comes from and sweep it (docs/rnic.md, "NIC profiles").
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
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bifrost/core/time.h"
#include "bifrost/rnic/device.h"

namespace bifrost::rnic {

// ConnectX-5's optional lossy-RoCE features, each with the value it uses when on.
struct LossyFeatures {
  bool tx_window = false;  // at most tx_window_packets in flight per QP
  uint32_t tx_window_packets = 128;
  bool slow_restart = false;  // a retransmission timeout cuts the DCQCN rate (needs DCQCN)
  bool adaptive_retransmission = false;  // first timeout adaptive_rto, doubling per timeout
  Time adaptive_rto = Time::us(16);

  bool any() const { return tx_window || slow_restart || adaptive_retransmission; }
};

struct NicProfile {
  std::string name;  // "cx4" or "cx5"
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

  // Sets the device's engine to go-back-N, the DCQCN constants (when DCQCN is on) and the
  // enabled lossy features. Throws Error for a lossy feature on a profile without them, slow
  // restart without DCQCN, or a zero window, timer or byte counter.
  void apply(DeviceConfig& device) const;
};

NicProfile connectx4_profile();
NicProfile connectx5_profile();
// "cx4" or "cx5"; throws Error naming the choices otherwise.
NicProfile find_nic_profile(std::string_view name);

}  // namespace bifrost::rnic
