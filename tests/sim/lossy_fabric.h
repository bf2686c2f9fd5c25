#pragma once
// A scenario's fabric for carrier tests that build the Network themselves: no lossless class
// (nothing pauses, full buffers drop), and the drops of every switch summed.
#include <cstdint>

#include "bifrost/sim/network.h"
#include "bifrost/sim/scenario/scenario.h"

namespace bifrost::sim::testing {

inline NetworkConfig lossy_network_config(const scenario::Scenario& sc) {
  NetworkConfig nc;
  nc.switches = sc.switches;
  nc.mtu = sc.simulation.mtu;
  nc.lossless_priorities = 0;
  return nc;
}

inline uint64_t switch_drops(const Network& network) {
  uint64_t n = 0;
  for (const auto& sw : network.switches()) {
    for (const uint64_t d : sw->counters().drops.packets) n += d;
  }
  return n;
}

}  // namespace bifrost::sim::testing
