#pragma once
// One point of bifrost-rnic-loss: two soft RNICs joined by a lossy wire (sim::NicPair), --qps
// connected RC QP pairs each keeping --outstanding messages posted, and what came through.
#include <functional>

#include "scenario.h"

namespace bifrost::rnic_loss {

// Simulates one engine at one loss rate; `progress` (if set) hears the simulated microseconds
// every two seconds of wall time.
Result run_point(const Options& o, EngineKind engine, double loss,
                 const std::function<void(double)>& progress);

}  // namespace bifrost::rnic_loss
