#pragma once
// A clock that stands still unless the test moves it, for code that only reads now().
#include "bifrost/world/scheduler.h"

namespace bifrost::testing {

class ManualScheduler : public world::Scheduler {
 public:
  Time now() const override { return now_; }
  world::TimerId at(Time, world::TimerCallback) override { return {}; }
  bool cancel(world::TimerId) override { return false; }
  Time now_;
};

}  // namespace bifrost::testing
