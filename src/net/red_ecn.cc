#include "bifrost/net/red_ecn.h"

#include "bifrost/core/error.h"

namespace bifrost::net {

RedMarker::RedMarker(const RedEcnConfig& config) : config_(config) {
  if (!config.enabled) return;
  if (config.kmin >= config.kmax) {
    throw Error("ECN marking needs kmin < kmax, got kmin {} and kmax {} bytes", config.kmin.count(),
                config.kmax.count());
  }
  if (!(config.pmax >= 0.0 && config.pmax <= 1.0)) {
    throw Error("ECN pmax must be a probability in [0, 1], got {}", config.pmax);
  }
}

double RedMarker::probability(Bytes queue) const {
  if (!config_.enabled || queue <= config_.kmin) return 0.0;
  if (queue >= config_.kmax) return 1.0;
  const auto above = static_cast<double>(queue.count() - config_.kmin.count());
  const auto span = static_cast<double>(config_.kmax.count() - config_.kmin.count());
  return config_.pmax * above / span;
}

bool RedMarker::should_mark(Bytes queue, RandomStream& rng) const {
  if (!config_.enabled || queue <= config_.kmin) return false;
  if (queue >= config_.kmax) return true;
  return rng.bernoulli(probability(queue));
}

}  // namespace bifrost::net
