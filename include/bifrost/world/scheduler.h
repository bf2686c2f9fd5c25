#pragma once
// The clock/scheduler half of the world boundary. The transport and the NIC read time and set
// timers only through this interface; the simulated world implements it with the event kernel
// (virtual time), the real world with a monotonic clock and an event loop.
#include <cstdint>

#include "bifrost/core/inplace_function.h"
#include "bifrost/core/time.h"

namespace bifrost::world {

// A callback run when a timer fires. Captures must fit in 40 bytes: no allocation per timer.
using TimerCallback = InplaceFunction<void(), 40>;

// Names one scheduled callback. The default value names nothing; cancelling it is a no-op.
struct TimerId {
  uint64_t value = 0;
  constexpr bool valid() const { return value != 0; }
  constexpr bool operator==(const TimerId&) const = default;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // The current time of this world.
  virtual Time now() const = 0;
  // Runs `callback` at absolute time `when` (at `now()` if `when` is in the past). Callbacks
  // with equal times run in the order they were scheduled.
  virtual TimerId at(Time when, TimerCallback callback) = 0;
  // Stops a pending callback from running. Returns false if it already ran or was cancelled.
  virtual bool cancel(TimerId id) = 0;

  TimerId after(Time delay, TimerCallback callback) {
    return at(now() + delay, std::move(callback));
  }
};

}  // namespace bifrost::world
