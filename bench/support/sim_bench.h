#pragma once
// What the simulated-NIC benchmarks share: the loss-free 100 Gb/s, 3 us one-way wire they run
// over, and the thread's CPU time (what Google Benchmark's items_per_second uses too), so a
// loaded machine inflates neither side of a ratio.
#include <ctime>

#include "bifrost/sim/lossy_wire.h"

namespace bifrost::bench {

inline sim::LossyWireConfig fast_wire() {
  sim::LossyWireConfig w;
  w.rate = Rate::Gbps(100);
  w.delay = Time::us(3);
  return w;
}

inline double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

}  // namespace bifrost::bench
