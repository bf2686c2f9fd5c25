#pragma once
// The discrete-event kernel of the simulated world: virtual time and a queue of callbacks.
//
// - Events run in (time, scheduling order): equal timestamps run in insertion order, so a run
//   is a deterministic function of its inputs.
// - No heap allocation per event once warm: callbacks live in pooled 64-byte slots (chunked,
//   stable addresses) and the queue (detail/radix_queue.h) holds 16-byte (time, slot) items.
//   The queue keeps equal times in insertion order by construction, and tells the kernel which
//   events come next so their slots are prefetched before they run.
// - cancel() is O(1): the slot is marked dead, its captured state destroyed at once, and the
//   queue item dropped when it reaches the front; dead items are purged in bulk when they
//   outnumber live ones, so re-armed timers cannot bloat the queue.
#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/sim/detail/radix_queue.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::sim {

class EventKernel final : public world::Scheduler {
 public:
  EventKernel();
  ~EventKernel() override;
  EventKernel(const EventKernel&) = delete;
  EventKernel& operator=(const EventKernel&) = delete;

  Time now() const override { return now_; }
  world::TimerId at(Time when, world::TimerCallback callback) override;
  bool cancel(world::TimerId id) override;

  // Runs events until none is left or stop() is called.
  void run();
  // Runs every event with time <= `end`, then advances the clock to `end`.
  void run_until(Time end);
  // Runs the next live event, if any. Returns false when the queue is empty.
  bool step();
  // Makes run()/run_until() return after the current event.
  void stop() { stop_requested_ = true; }

  // Events scheduled and not yet run or cancelled.
  std::size_t pending() const { return live_; }
  uint64_t executed() const { return executed_; }

 private:
  struct Slot;
  static constexpr std::size_t kChunkSlots = 1024;

  Slot& slot(uint32_t index);
  uint32_t allocate_slot();
  void release_slot(uint32_t index);
  void purge_cancelled();
  // Drops cancelled items at the front; returns false when the queue is empty.
  bool skip_cancelled_front();
  void run_front();

  Time now_ = Time::zero();
  detail::RadixQueue queue_;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  uint32_t slot_count_ = 0;
  uint32_t free_head_ = UINT32_MAX;
  std::size_t live_ = 0;
  std::size_t cancelled_in_queue_ = 0;
  uint64_t executed_ = 0;
  bool stop_requested_ = false;
};

}  // namespace bifrost::sim
