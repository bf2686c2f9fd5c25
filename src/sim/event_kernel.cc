#include "bifrost/sim/event_kernel.h"

#include "bifrost/core/error.h"

namespace bifrost::sim {

// One scheduled event: its callback and bookkeeping in one cache line. `generation` changes on
// every release, so a stale TimerId (already run or cancelled, slot reused) never matches.
struct alignas(64) EventKernel::Slot {
  enum class State : uint8_t { kFree, kPending, kCancelled, kRunning };
  world::TimerCallback callback;
  uint32_t generation = 1;
  uint32_t next_free = UINT32_MAX;
  State state = State::kFree;
};
static_assert(sizeof(world::TimerCallback) <= 48, "a slot should fit one cache line");

inline EventKernel::Slot& EventKernel::slot(uint32_t index) {
  return chunks_[index / kChunkSlots][index % kChunkSlots];
}

EventKernel::EventKernel() = default;
EventKernel::~EventKernel() = default;

uint32_t EventKernel::allocate_slot() {
  if (free_head_ != UINT32_MAX) {
    const uint32_t index = free_head_;
    free_head_ = slot(index).next_free;
    return index;
  }
  if (slot_count_ == UINT32_MAX - 1) {
    throw Error("event kernel: more than {} events pending at once", UINT32_MAX - 1);
  }
  if (slot_count_ % kChunkSlots == 0) chunks_.push_back(std::make_unique<Slot[]>(kChunkSlots));
  return slot_count_++;
}

void EventKernel::release_slot(uint32_t index) {
  Slot& s = slot(index);
  s.callback.reset();
  s.state = Slot::State::kFree;
  ++s.generation;
  s.next_free = free_head_;
  free_head_ = index;
}

world::TimerId EventKernel::at(Time when, world::TimerCallback callback) {
  if (when < now_) when = now_;
  const uint32_t index = allocate_slot();
  Slot& s = slot(index);
  s.callback = std::move(callback);
  s.state = Slot::State::kPending;
  queue_.push(static_cast<uint64_t>(when.picoseconds()), index);
  ++live_;
  // TimerId: generation in the high half, slot + 1 in the low half (0 stays "no timer").
  return world::TimerId{(uint64_t{s.generation} << 32) | (uint64_t{index} + 1)};
}

bool EventKernel::cancel(world::TimerId id) {
  if (!id.valid()) return false;
  const uint64_t index = (id.value & 0xFFFF'FFFFu) - 1;
  if (index >= slot_count_) return false;
  Slot& s = slot(static_cast<uint32_t>(index));
  if (s.state != Slot::State::kPending || s.generation != static_cast<uint32_t>(id.value >> 32)) {
    return false;
  }
  s.state = Slot::State::kCancelled;
  s.callback.reset();  // release captured state now, not when the item surfaces
  --live_;
  ++cancelled_in_queue_;
  if (cancelled_in_queue_ > 1024 && cancelled_in_queue_ > live_) purge_cancelled();
  return true;
}

void EventKernel::purge_cancelled() {
  queue_.remove_if([this](const detail::RadixQueue::Item& item) {
    if (slot(item.id).state != Slot::State::kCancelled) return false;
    release_slot(item.id);
    return true;
  });
  cancelled_in_queue_ = 0;
}

bool EventKernel::skip_cancelled_front() {
  while (!queue_.empty()) {
    const uint32_t index = queue_.top().id;
    // With 10^5 events pending the slots are cold: fetch the whole run of upcoming events'
    // slots in parallel rather than missing the cache on each one in turn.
    queue_.for_fresh_run([this](uint32_t next) { __builtin_prefetch(&slot(next)); });
    if (slot(index).state != Slot::State::kCancelled) return true;
    queue_.pop();
    --cancelled_in_queue_;
    release_slot(index);
  }
  return false;
}

void EventKernel::run_front() {
  const auto item = queue_.pop();
  now_ = Time::ps(static_cast<int64_t>(item.time));
  --live_;
  ++executed_;
  // Slots have stable addresses, so the callback runs in place even if it schedules more
  // events; the slot is freed afterwards so a callback cannot cancel itself into reuse.
  Slot& s = slot(item.id);
  s.state = Slot::State::kRunning;  // cancel() from inside its own callback is a no-op
  s.callback();
  release_slot(item.id);
}

bool EventKernel::step() {
  if (!skip_cancelled_front()) return false;
  run_front();
  return true;
}

void EventKernel::run() {
  stop_requested_ = false;
  while (!stop_requested_ && skip_cancelled_front()) run_front();
}

void EventKernel::run_until(Time end) {
  stop_requested_ = false;
  while (!stop_requested_ && skip_cancelled_front() &&
         queue_.top().time <= static_cast<uint64_t>(end.picoseconds())) {
    run_front();
  }
  if (!stop_requested_ && now_ < end) now_ = end;
}

}  // namespace bifrost::sim
