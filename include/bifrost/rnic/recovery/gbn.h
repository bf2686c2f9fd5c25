#pragma once
// Go-back-N, the commodity RNIC behaviour (semantics pinned in src/rnic/recovery/gbn.cc).
#include "bifrost/rnic/recovery/engine.h"

namespace bifrost::rnic::recovery {

class GbnEngine final : public Engine {
 public:
  // Throws Error for an adaptive first timeout below 0 or above 1 s.
  explicit GbnEngine(const RecoveryConfig& config);
  std::string_view name() const override { return "gbn"; }
  bool selective() const override { return false; }
  // A go-back-N NIC keeps only the expected PSN and the NAK flag inside the base context.
  MemoryFootprint footprint() const override { return {}; }
  // Nothing beyond the base context (gbn.cc's states say what they keep there).
  MemoryFootprint implemented_footprint() const override;
  std::unique_ptr<RequesterState> make_requester() override;
  std::unique_ptr<ResponderState> make_responder() override;

 private:
  RecoveryConfig config_;
};

}  // namespace bifrost::rnic::recovery
