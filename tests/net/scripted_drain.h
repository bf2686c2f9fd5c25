#pragma once
// A drain under a test's control: a gate on the egress towards a sink that the test opens
// ("ready": it drains at its link rate) and closes (zero drain), and a driver that alternates
// the two for random periods. Used by the long-haul flow-control benches (DCI, SWING).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/sim/event_kernel.h"

namespace bifrost::net::testing {

inline constexpr int kDciPrio = 3;
inline constexpr uint32_t kMaxFrame = 1102;  // LineRateFlows at MTU 1024: FIRST frame

// Opens and closes the sink-facing egress on the test's script.
class ScriptedDrain final : public EgressGate {
 public:
  void on_control(const ControlFrame& /*frame*/) override {}
  void set_ready(bool ready) {
    if (ready) {
      open(kDciPrio);
    } else {
      close(kDciPrio);
    }
  }
  bool ready() const { return (closed_mask() >> kDciPrio & 1) == 0; }
};

// Runs `kernel` until `horizon` with `drain` alternately ready and stopped for random periods
// (up to 300 us, and stops of 1 ms a quarter of the time: long zero-drain periods and abrupt
// restarts). `on_ready(start, end, before)` runs for each ready period: `before` is true at its
// start (drain not yet run), false at its end.
template <typename OnReady>
void random_drain(sim::EventKernel& kernel, ScriptedDrain& drain, RandomStream& rng, Time horizon,
                  OnReady on_ready) {
  Time t = Time::zero();
  bool ready = true;
  while (t < horizon) {
    Time length = Time::ns(static_cast<int64_t>(rng.uniform_int(0, 300'000)));
    if (!ready && rng.uniform_int(0, 3) == 0) length = Time::ms(1);
    const Time end = std::min(horizon, t + length);
    kernel.run_until(t);
    drain.set_ready(ready);
    if (ready) on_ready(t, end, true);
    kernel.run_until(end);
    if (ready) on_ready(t, end, false);
    ready = !ready;
    t = end;
  }
}

// What the drain sent in one ready period (frame bytes, read at its start and end).
struct ReadyPeriod {
  Time start;
  Time end;
  uint64_t drained_at_start = 0;
  uint64_t drained_at_end = 0;
};

// The queue never ran dry while the egress was ready: every period from `warmup` on sent at
// least `rate` x its length in frame bytes (1086 of every 1106 wire bytes) minus two frames,
// one in flight at each end of the period.
inline void expect_never_dry(const std::vector<ReadyPeriod>& ready, Rate rate, Time warmup) {
  for (const ReadyPeriod& p : ready) {
    if (p.start < warmup) continue;
    const uint64_t can = bytes_in(p.end - p.start, rate).count() * 1086 / 1106;
    const uint64_t did = p.drained_at_end - p.drained_at_start;
    EXPECT_GE(did + 2 * (kMaxFrame + 20), can)
        << "ran dry in the ready period " << p.start.nanoseconds() << ".." << p.end.nanoseconds()
        << " ns";
  }
}

}  // namespace bifrost::net::testing
