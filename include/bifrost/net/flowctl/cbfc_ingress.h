#pragma once
// The downstream half of CBFC, at a buffering node's ingress port: counts the blocks received
// and held per priority and sends a credit update (FCCL) upstream every update period. The
// buffer is reserved for the port (headroom with xoff 0), so a frame beyond it is a
// kHeadroomExceeded drop, which correct credits never cause.
#include <array>
#include <cstdint>

#include "bifrost/net/flowctl/cbfc_config.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class EgressPort;

class CbfcIngress final : public IngressFlowControl {
 public:
  // `reverse` is this node's egress port on the same link. Throws Error for a bad configuration.
  CbfcIngress(world::Scheduler& scheduler, const CbfcConfig& config, EgressPort& reverse);
  ~CbfcIngress() override;

  IngressLimits limits(int priority) const override;
  uint8_t watched_priorities() const override { return config_.priorities; }
  void on_admitted(int priority, const IngressUsage& usage) override;
  void on_released(int priority, const IngressUsage& usage) override;

  // The credit limit a priority advertises now, unwrapped.
  uint64_t credit_limit(int priority) const;
  uint64_t updates_sent() const { return updates_sent_; }

 private:
  struct State {
    uint64_t received = 0;  // ABR: blocks received
    uint64_t held = 0;      // blocks in the buffer
    uint64_t last_total = 0;
  };

  void send_updates();
  bool controlled(int priority) const { return (config_.priorities >> priority) & 1; }

  world::Scheduler& scheduler_;
  CbfcConfig config_;
  EgressPort& reverse_;
  uint64_t buffer_blocks_ = 0;
  uint64_t max_outstanding_ = 0;  // 2^(bits - 1) blocks, or the buffer when ideal
  uint64_t updates_sent_ = 0;
  world::TimerId timer_{};
  std::array<State, kPriorities> state_{};
};

}  // namespace bifrost::net
