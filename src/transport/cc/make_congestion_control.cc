#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/transport/cc/dcqcn.h"
#include "bifrost/transport/cc/swift.h"

namespace bifrost::transport {

namespace {

// No congestion control: the window never limits (the NIC or the fabric does).
class NoCongestionControl final : public CongestionControl {
 public:
  std::string_view name() const override { return "none"; }
  void on_ack(const AckEvent&) override {}
  void on_loss(Time) override {}
  void on_timeout(Time) override {}
  uint64_t window_bytes() const override { return std::numeric_limits<uint64_t>::max(); }
};

}  // namespace

std::unique_ptr<CongestionControl> make_congestion_control(std::string_view name,
                                                           const CcParams& params) {
  if (name == "swift") return std::make_unique<Swift>(swift_params_for(params));
  if (name == "swift-md") {
    SwiftParams p = swift_params_for(params);
    p.loss_to_minimum = false;
    return std::make_unique<Swift>(p);
  }
  if (name == "dcqcn") return std::make_unique<Dcqcn>(dcqcn_params_for(params));
  if (name == "none") return std::make_unique<NoCongestionControl>();
  throw Error("unknown congestion control '{}' (known: swift, swift-md, dcqcn, none)", name);
}

}  // namespace bifrost::transport
