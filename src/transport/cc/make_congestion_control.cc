#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/cc_config.h"
#include "bifrost/transport/cc/congestion_control.h"

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

std::unique_ptr<CongestionControl> make_congestion_control(const CcConfig& config,
                                                           const CcParams& path) {
  switch (config.kind) {
    case CcKind::swift:
    case CcKind::swift_md:
      return std::make_unique<Swift>(config.swift_params(path));
    case CcKind::dcqcn:
      return std::make_unique<Dcqcn>(config.dcqcn_params(path));
    case CcKind::vegas:
      return std::make_unique<Vegas>(config.vegas_params(path));
    case CcKind::timely:
      return std::make_unique<Timely>(config.timely_params(path));
    case CcKind::dctcp:
      return std::make_unique<Dctcp>(config.dctcp_params(path));
    case CcKind::none:
      return std::make_unique<NoCongestionControl>();
  }
  throw Error("make_congestion_control: no algorithm for kind {}", static_cast<int>(config.kind));
}

}  // namespace bifrost::transport
