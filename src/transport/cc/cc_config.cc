#include "bifrost/transport/cc/cc_config.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

#include "bifrost/core/error.h"

namespace bifrost::transport {

namespace {

// The fields each algorithm takes from the path: one list, used both to fill them in and to
// check that nobody set them in `params` (where they would be overwritten).
auto path_fields(SwiftParams& p) {
  return std::tie(p.target_delay, p.target_slack, p.mss, p.min_window, p.initial_window,
                  p.max_window, p.packet_bytes);
}
auto path_fields(DcqcnParams& p) {
  return std::tie(p.rp.line_rate, p.rp.min_rate, p.base_rtt, p.mss);
}
auto path_fields(VegasParams& p) {
  return std::tie(p.packet_bytes, p.line_rate, p.max_window_bytes, p.rate_step);
}
auto path_fields(TimelyParams& p) {
  return std::tie(p.additive_increase, p.min_rate, p.line_rate, p.base_rtt, p.mss);
}
auto path_fields(DctcpParams& p) {
  return std::tie(p.mss, p.max_window_bytes);
}

// `params` with its path fields taken from `derived`.
template <typename Params>
Params with_path_fields(Params params, Params derived) {
  path_fields(params) = path_fields(derived);
  return params;
}

template <typename Params>
void check_path_fields_untouched(const Params& params, std::string_view kind) {
  Params copy = params;
  Params defaults{};
  if (path_fields(copy) != path_fields(defaults)) {
    throw Error(
        "transport: cc {}: a field derived from the path (base RTT, BDP, unit size, line "
        "rate) was set in params; set the block's override of it instead",
        kind);
  }
}

template <typename T>
void apply(T& field, const std::optional<T>& override_value) {
  if (override_value) field = *override_value;
}

}  // namespace

CcKind parse_cc_kind(std::string_view name) {
  const auto* at = std::find(kCcKindNames.begin(), kCcKindNames.end(), name);
  if (at == kCcKindNames.end()) {
    throw Error("unknown congestion control '{}' (known: {})", name, fmt::join(kCcKindNames, ", "));
  }
  return static_cast<CcKind>(at - kCcKindNames.begin());
}

SwiftParams CcConfig::swift_params(const CcParams& path) const {
  SwiftParams p = with_path_fields(swift.params, swift_params_for(path));
  apply(p.target_delay, swift.target_delay);
  apply(p.target_slack, swift.target_slack);
  apply(p.min_window, swift.min_window);
  apply(p.initial_window, swift.initial_window);
  apply(p.max_window, swift.max_window);
  if (kind == CcKind::swift_md) p.loss_to_minimum = false;
  return p;
}

DcqcnParams CcConfig::dcqcn_params(const CcParams& path) const {
  DcqcnParams p = with_path_fields(dcqcn.params, dcqcn_params_for(path));
  apply(p.rp.min_rate, dcqcn.min_rate);
  apply(p.base_rtt, dcqcn.base_rtt);
  return p;
}

VegasParams CcConfig::vegas_params(const CcParams& path) const {
  VegasParams p = with_path_fields(vegas.params, vegas_params_for(path));
  // The derived cap assumed the default initial window; a larger one given here raises it.
  p.max_window_bytes =
      std::max(p.max_window_bytes, uint64_t{p.initial_window_packets} * p.packet_bytes);
  apply(p.rate_step, vegas.rate_step);
  apply(p.max_window_bytes, vegas.max_window_bytes);
  return p;
}

TimelyParams CcConfig::timely_params(const CcParams& path) const {
  TimelyParams p = with_path_fields(timely.params, timely_params_for(path));
  apply(p.additive_increase, timely.additive_increase);
  apply(p.min_rate, timely.min_rate);
  return p;
}

DctcpParams CcConfig::dctcp_params(const CcParams& path) const {
  DctcpParams p = with_path_fields(dctcp.params, dctcp_params_for(path));
  // As Vegas: the derived cap assumed the default initial window.
  p.max_window_bytes = std::max(p.max_window_bytes, uint64_t{p.initial_window_packets} * p.mss);
  apply(p.max_window_bytes, dctcp.max_window_bytes);
  return p;
}

void CcConfig::validate(const CcParams& path) const {
  switch (kind) {
    case CcKind::swift:
    case CcKind::swift_md:
      check_path_fields_untouched(swift.params, to_string(kind));
      swift_params(path).validate();
      return;
    case CcKind::dcqcn:
      check_path_fields_untouched(dcqcn.params, to_string(kind));
      dcqcn_params(path).validate();
      return;
    case CcKind::vegas:
      check_path_fields_untouched(vegas.params, to_string(kind));
      vegas_params(path).validate();
      return;
    case CcKind::timely:
      check_path_fields_untouched(timely.params, to_string(kind));
      timely_params(path).validate();
      return;
    case CcKind::dctcp:
      check_path_fields_untouched(dctcp.params, to_string(kind));
      dctcp_params(path).validate();
      return;
    case CcKind::none:
      return;
  }
}

}  // namespace bifrost::transport
