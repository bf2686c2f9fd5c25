#pragma once
// The real world's clock: CLOCK_MONOTONIC as a bifrost Time. Monotonic so timers never jump
// with NTP or date changes; its epoch (boot) is arbitrary, so only differences mean anything.
#include <cstdint>

#include "bifrost/core/time.h"

namespace bifrost::real {

Time monotonic_now();

// CLOCK_REALTIME minus CLOCK_MONOTONIC, sampled now: maps kernel timestamps (which the socket
// layer reports in CLOCK_REALTIME) onto the monotonic clock. Good to a few microseconds, and it
// moves when the wall clock is stepped, so callers refresh it now and then. In nanoseconds:
// realtime in picoseconds would overflow a Time (which spans about 106 days).
int64_t realtime_minus_monotonic_ns();

// This process's CPU time so far (user + system, every thread), in seconds: what benchmarks
// report as the cost of the work they did.
double process_cpu_seconds();

}  // namespace bifrost::real
