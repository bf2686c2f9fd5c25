#include "bifrost/transport/virtuoso/path_estimates.h"

namespace bifrost::transport::virtuoso {

std::optional<std::vector<double>> PathEstimateCache::find(world::Ipv4 local,
                                                           world::Ipv4 peer) const {
  const auto it = estimates_.find({local.value, peer.value});
  if (it == estimates_.end()) return std::nullopt;
  ++hits_;
  return it->second;
}

void PathEstimateCache::store(world::Ipv4 local, world::Ipv4 peer, std::vector<double> capacity) {
  estimates_[{local.value, peer.value}] = std::move(capacity);
}

}  // namespace bifrost::transport::virtuoso
