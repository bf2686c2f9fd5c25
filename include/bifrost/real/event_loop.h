#pragma once
// The real world's scheduler: a monotonic clock, a timer heap and epoll. The soft RNIC and the
// transport set timers through world::Scheduler exactly as in simulation; sockets register
// their file descriptors here. One loop per thread; nothing is thread-safe.
//
// Timers live in a slot pool addressed by TimerId (slot index + generation), and the heap holds
// (time, sequence, slot, generation) entries, so scheduling and cancelling allocate nothing once
// the pool and heap have grown to their working size. Cancelled entries stay in the heap until
// they reach the top and are skipped there.
#include <sys/epoll.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "bifrost/core/inplace_function.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::real {

// Told with the epoll event bits (EPOLLIN, EPOLLOUT, EPOLLERR, ...) that fired.
using FdHandler = InplaceFunction<void(uint32_t events), 32>;

struct EventLoopConfig {
  // Spin: epoll_wait with timeout 0 and timers checked every pass, for the lowest latency at
  // the cost of a full core.
  bool busy_poll = false;
  // Events taken from epoll per pass.
  int max_events = 64;
};

class EventLoop final : public world::Scheduler {
 public:
  explicit EventLoop(EventLoopConfig config = {});
  ~EventLoop() override;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // world::Scheduler. now() reads the monotonic clock on every call.
  Time now() const override;
  world::TimerId at(Time when, world::TimerCallback callback) override;
  bool cancel(world::TimerId id) override;

  // Runs `callback` after the current callback returns, before the loop waits again (FIFO).
  // Callbacks deferred by deferred callbacks run in the same pass unless the pass has spent
  // 50 us on them: then the sockets are polled (without waiting) first, so a chain that never
  // ends (send, complete, post, send ...) cannot keep arriving packets (ACKs) waiting.
  void defer(world::TimerCallback callback);

  // Watches `fd` for `events` (EPOLLIN, EPOLLOUT, ...). Throws Error if fd is already watched
  // or epoll refuses it. The handler may add, modify or remove any fd, including its own.
  void add_fd(int fd, uint32_t events, FdHandler handler);
  void modify_fd(int fd, uint32_t events);
  // Stops watching; does not close the fd. A no-op for an fd that is not watched.
  void remove_fd(int fd);

  // Runs until stop() is called.
  void run();
  // Runs until `done()` is true (checked after every pass) or the monotonic clock reaches
  // `deadline`; returns done(). stop() also ends it.
  bool run_until(const std::function<bool()>& done, Time deadline = Time::max());
  // Runs one pass: fd events already waiting (only if a timer is due: what arrived while the
  // loop was away is read before any timer judges it late), due timers, deferred callbacks,
  // and fd events waiting at most until `deadline` (or not at all in busy-poll mode).
  void run_once(Time deadline = Time::max());
  void stop() { stopped_ = true; }

  // For a thread that sleeps outside the loop (the verbs library's progress thread, which must
  // not hold the NIC's lock while it waits): the epoll descriptor, readable when a watched fd
  // is ready; when the next timer or deferred callback is due (Time::max() if none); and a pass
  // that runs only what is due, without looking at the fds (no system call of its own).
  int wait_fd() const { return epoll_fd_; }
  Time next_due();
  bool run_due();

  size_t pending_timers() const { return live_timers_; }
  bool busy_poll() const { return config_.busy_poll; }

 private:
  struct Slot {
    world::TimerCallback callback;
    uint32_t generation = 1;
    bool armed = false;
  };
  struct Entry {
    Time when;
    uint64_t sequence;
    uint32_t slot;
    uint32_t generation;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.when != b.when ? a.when > b.when : a.sequence > b.sequence;
    }
  };

  // Each returns true if it ran anything.
  bool run_due_timers();
  bool run_deferred();
  // Waits for fd events at most `timeout` (null: no limit) and runs their handlers.
  void dispatch_ready(const timespec* timeout);
  void release(uint32_t slot);
  // Drops cancelled entries from the top of the heap.
  void prune();

  EventLoopConfig config_;
  int epoll_fd_ = -1;
  bool stopped_ = false;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<Entry> heap_;
  uint64_t next_sequence_ = 0;
  size_t live_timers_ = 0;
  std::vector<world::TimerCallback> deferred_;
  std::vector<world::TimerCallback> running_deferred_;
  // Indexed by fd; null means not watched. Heap-allocated so that a handler removing its own
  // fd is parked in retired_ until the pass ends instead of being destroyed while it runs.
  std::vector<std::unique_ptr<FdHandler>> fd_handlers_;
  std::vector<std::unique_ptr<FdHandler>> retired_;
  std::vector<epoll_event> events_;
};

}  // namespace bifrost::real
