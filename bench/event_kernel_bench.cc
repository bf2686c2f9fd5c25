// The classic hold model: N events pending; each step pops the earliest and schedules one new
// event an exponential increment later. The bifrost event kernel is compared with the textbook
// baseline, std::priority_queue of std::function, in the same run.
#include <benchmark/benchmark.h>

#include <functional>
#include <queue>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/sim/event_kernel.h"
#include "support/ratio_report.h"

namespace {

using bifrost::Time;

// Exponential increments (mean 1 us) drawn once, so both variants see identical input and the
// random number generator's cost is not part of the measurement.
const std::vector<int64_t>& increments() {
  static const std::vector<int64_t> table = [] {
    bifrost::RandomStream rng(1, "hold-model");
    std::vector<int64_t> t(1 << 16);
    for (auto& v : t) v = rng.exponential_time(Time::us(1)).picoseconds();
    return t;
  }();
  return table;
}

struct HoldContext {
  bifrost::sim::EventKernel kernel;
  std::size_t next = 0;
  void reschedule() {
    const auto& inc = increments();
    kernel.at(kernel.now() + Time::ps(inc[next++ & (inc.size() - 1)]), [this] { reschedule(); });
  }
};

void hold_kernel(benchmark::State& state) {
  HoldContext ctx;
  for (int64_t i = 0; i < state.range(0); ++i) ctx.reschedule();
  for (auto _ : state) ctx.kernel.step();
  state.SetItemsProcessed(state.iterations());
}

struct BaselineEvent {
  int64_t time;
  uint64_t seq;
  std::function<void()> fn;
  bool operator>(const BaselineEvent& o) const {
    return time > o.time || (time == o.time && seq > o.seq);
  }
};

struct BaselineContext {
  std::priority_queue<BaselineEvent, std::vector<BaselineEvent>, std::greater<>> queue;
  int64_t now = 0;
  uint64_t seq = 0;
  std::size_t next = 0;
  void reschedule() {
    const auto& inc = increments();
    queue.push({now + inc[next++ & (inc.size() - 1)], seq++, [this] { reschedule(); }});
  }
  void step() {
    BaselineEvent e = std::move(const_cast<BaselineEvent&>(queue.top()));
    queue.pop();
    now = e.time;
    e.fn();
  }
};

void hold_baseline(benchmark::State& state) {
  BaselineContext ctx;
  for (int64_t i = 0; i < state.range(0); ++i) ctx.reschedule();
  for (auto _ : state) ctx.step();
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(hold_kernel)->Name("hold/kernel")->Arg(1'000)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(hold_baseline)->Name("hold/baseline")->Arg(1'000)->Arg(100'000)->Arg(1'000'000);

}  // namespace

int main(int argc, char** argv) {
  return bifrost::bench::run_with_ratios(argc, argv);
}
