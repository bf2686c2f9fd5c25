#pragma once
// The downstream half of PFC, at a buffering node's ingress port. A lossless priority whose
// bytes from this port reach xoff (which includes spilling into headroom) sends a pause frame
// for that priority upstream; the pause is re-sent every refresh period while the bytes stay
// above xon, and a zero-time pause (resume) goes out as soon as they fall to xon with the
// port's headroom empty.
#include <array>
#include <cstdint>

#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/net/flowctl/pfc_config.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class EgressPort;

struct PfcIngressCounters {
  std::array<uint64_t, kPriorities> pause_sent{};    // first pause of an episode
  std::array<uint64_t, kPriorities> refresh_sent{};  // pauses re-sent while still above xon
  std::array<uint64_t, kPriorities> resume_sent{};   // zero-time pauses
};

class PfcIngress final : public IngressFlowControl {
 public:
  // `reverse` is this node's egress port on the same link; pause frames leave through it.
  // Throws Error for a bad configuration or a port without a link.
  PfcIngress(world::Scheduler& scheduler, const PfcConfig& config, EgressPort& reverse);
  ~PfcIngress() override;

  IngressLimits limits(int priority) const override;
  uint8_t watched_priorities() const override { return config_.lossless_priorities; }
  void on_admitted(int priority, const IngressUsage& usage) override;
  void on_released(int priority, const IngressUsage& usage) override;

  bool pausing(int priority) const { return pausing_[priority]; }
  Time refresh_period() const { return refresh_period_; }
  const PfcIngressCounters& counters() const { return counters_; }

 private:
  bool lossless(int priority) const { return (config_.lossless_priorities >> priority) & 1; }
  bool at_or_below_xon(const IngressUsage& usage) const;
  void start_pause(int priority);
  void refresh(int priority);
  void resume(int priority);
  void arm_refresh(int priority);

  world::Scheduler& scheduler_;
  PfcConfig config_;
  EgressPort& reverse_;
  Time refresh_period_;
  std::array<bool, kPriorities> pausing_{};
  std::array<world::TimerId, kPriorities> refresh_timer_{};
  PfcIngressCounters counters_;
};

}  // namespace bifrost::net
