#include "bifrost/rnic/nic_profile.h"

#include "bifrost/core/error.h"

namespace bifrost::rnic {

NicProfile connectx3pro_profile() {
  NicProfile p;
  p.name = "cx3pro";
  p.dcqcn_increase_period = Time::us(300);  // assumed: the mlx5 defaults, as cx4
  p.dcqcn_increase_bytes = 32767;
  p.needs_lossless = true;
  p.line_rate = Rate::Gbps(10);
  p.max_mtu = 2048;
  p.per_priority_limiters = kConnectX3ProLimiters;
  p.rate_change_delay = kRogueRateChangeDelay;
  p.serialize_verbs_after_retransmission = true;
  return p;
}

NicProfile connectx4_profile() {
  NicProfile p;
  p.name = "cx4";
  p.dcqcn_increase_period = Time::us(300);
  p.dcqcn_increase_bytes = 32767;
  p.needs_lossless = true;
  // Calibrated, not measured: the Bifröst paper's hybrid-cluster gap (§4.5, Fig. 10: ARDMA
  // 33.2 vs 41.3 Gb/s, 21.8%) in experiments/bifrost-hybrid-cluster's full mesh, where 5 groups
  // give 19.6-24.1% over three seeds (mean 21.8%). See nic_profile.h for why this mechanism.
  p.dcqcn_reaction_groups = kConnectX4DcqcnReactionGroups;
  return p;
}

NicProfile connectx5_profile() {
  NicProfile p;
  p.name = "cx5";
  p.dcqcn_increase_period = Time::us(55);
  p.dcqcn_increase_bytes = 10'000'000;
  p.has_lossy_features = true;
  return p;
}

NicProfile find_nic_profile(std::string_view name) {
  if (name == "cx3pro") return connectx3pro_profile();
  if (name == "cx4") return connectx4_profile();
  if (name == "cx5") return connectx5_profile();
  throw Error("unknown NIC profile '{}': use cx3pro, cx4 or cx5", name);
}

void NicProfile::apply(DeviceConfig& device) const {
  if (lossy.any() && !has_lossy_features) {
    throw Error("NIC profile {}: this generation has no lossy-RoCE features", name);
  }
  if (dcqcn_increase_period <= Time::zero() || dcqcn_increase_bytes == 0) {
    throw Error("NIC profile {}: the DCQCN increase timer and byte counter must be positive", name);
  }
  if (lossy.tx_window && lossy.tx_window_packets == 0) {
    throw Error("NIC profile {}: the in-flight window needs at least one packet", name);
  }
  if (lossy.adaptive_retransmission && lossy.adaptive_rto <= Time::zero()) {
    throw Error("NIC profile {}: the adaptive first timeout must be positive", name);
  }
  if (ack_delay && *ack_delay < Time::zero()) {
    throw Error("NIC profile {}: the ACK delay bound must not be negative", name);
  }
  if (lossy.slow_restart && !device.dcqcn) {
    throw Error("NIC profile {}: slow restart cuts the DCQCN rate; turn DCQCN on", name);
  }
  device.recovery.kind = recovery::EngineKind::gbn;
  device.recovery.gbn_tx_window = lossy.tx_window ? lossy.tx_window_packets : 0;
  device.recovery.gbn_adaptive_rto =
      lossy.adaptive_retransmission ? lossy.adaptive_rto : Time::zero();
  device.slow_restart = lossy.slow_restart;
  if (ack_delay) device.data_path.ack_delay = *ack_delay;
  if (max_mtu) device.max_mtu = *max_mtu;
  if (per_priority_limiters > 0) device.per_priority_limiters = per_priority_limiters;
  if (rate_change_delay) device.rate_limiter.change_delay = *rate_change_delay;
  if (dcqcn_reaction_groups > 0) device.dcqcn_reaction_groups = dcqcn_reaction_groups;
  if (serialize_verbs_after_retransmission) {
    device.data_path.serialize_verbs_after_retransmission = true;
  }
  if (device.dcqcn) {
    device.dcqcn->increase_period = dcqcn_increase_period;
    device.dcqcn->increase_bytes = dcqcn_increase_bytes;
  }
}

}  // namespace bifrost::rnic
