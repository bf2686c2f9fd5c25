#include "bifrost/rnic/recovery/sr_latency.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::rnic::recovery {

Time sr_action_latency(const SrLatencyConfig& config, EngineKind engine, SrAction action,
                       SrPath path) {
  const Time bitmap = config.cycle * config.bitmap_cycles;
  const bool needs_host =
      action == SrAction::update_rcv_nxt || action == SrAction::find_retransmit_psn;
  switch (engine) {
    case EngineKind::irn:
      return bitmap;
    case EngineKind::srnic:
      // Recording and SACKing are posted writes; the two actions that need the bitmap's
      // content wait for the host.
      return needs_host ? bitmap + config.host_query : bitmap;
    case EngineKind::fasr:
      return path == SrPath::fast ? config.cycle * config.fast_path_cycles : config.fasr_slow_path;
    case EngineKind::gbn:
      break;
  }
  throw Error("SR latency: go-back-N keeps no selective-repeat state; use irn, srnic or fasr");
}

namespace {
void check_fraction(double fast_fraction) {
  if (!(fast_fraction >= 0 && fast_fraction <= 1)) {
    throw Error("SR latency: fast-path fraction {} must be in [0, 1]", fast_fraction);
  }
}
}  // namespace

Time fasr_expected_latency(const SrLatencyConfig& config, double fast_fraction) {
  check_fraction(fast_fraction);
  const double fast = static_cast<double>(config.cycle.picoseconds()) * config.fast_path_cycles;
  const double slow = static_cast<double>(config.fasr_slow_path.picoseconds());
  return Time::ps(static_cast<int64_t>(fast_fraction * fast + (1 - fast_fraction) * slow + 0.5));
}

Time fasr_median_latency(const SrLatencyConfig& config, double fast_fraction) {
  check_fraction(fast_fraction);
  return fast_fraction >= 0.5 ? config.cycle * config.fast_path_cycles : config.fasr_slow_path;
}

double fasr_fast_fraction_for(const SrLatencyConfig& config, Time expected) {
  const double fast = static_cast<double>(config.cycle.picoseconds()) * config.fast_path_cycles;
  const double slow = static_cast<double>(config.fasr_slow_path.picoseconds());
  if (slow <= fast) throw Error("SR latency: the slow path must be slower than the fast path");
  const double e = static_cast<double>(expected.picoseconds());
  return std::clamp((slow - e) / (slow - fast), 0.0, 1.0);
}

double sr_pipeline_mpps(Time latency) {
  if (latency <= Time::zero()) throw Error("SR latency: a pipeline needs a positive latency");
  return 1e6 / static_cast<double>(latency.picoseconds());
}

Rate sr_pipeline_line_rate(Time latency, uint32_t frame_bytes) {
  return Rate::bps(
      static_cast<uint64_t>(sr_pipeline_mpps(latency) * 1e6 * 8.0 * frame_bytes + 0.5));
}

double throughput_under_query_stalls(Rate line_rate, double loss, Time query, uint32_t frame_bytes,
                                     double queries_per_loss) {
  if (!(loss >= 0 && loss < 1)) throw Error("SR latency: loss {} must be in [0, 1)", loss);
  if (line_rate <= Rate::bps(0) || frame_bytes == 0) {
    throw Error("SR latency: need a positive line rate and frame size");
  }
  const double frame_ps =
      static_cast<double>(serialization_time(Bytes(frame_bytes), line_rate).picoseconds());
  const double stall_ps = loss * queries_per_loss * static_cast<double>(query.picoseconds());
  return frame_ps / (frame_ps + stall_ps);
}

}  // namespace bifrost::rnic::recovery
