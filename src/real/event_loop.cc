#include "bifrost/real/event_loop.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"

namespace bifrost::real {

namespace {
// How long run_deferred keeps running generations of deferred callbacks before polling.
constexpr Time kDeferredBudget = Time::us(50);
}  // namespace

EventLoop::EventLoop(EventLoopConfig config) : config_(config) {
  if (config_.max_events <= 0) throw Error("event loop: max_events must be positive");
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw Error("event loop: epoll_create1 failed: {}", std::strerror(errno));
  events_.resize(static_cast<size_t>(config_.max_events));
}

EventLoop::~EventLoop() {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

Time EventLoop::now() const {
  return monotonic_now();
}

world::TimerId EventLoop::at(Time when, world::TimerCallback callback) {
  uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  s.callback = std::move(callback);
  s.armed = true;
  heap_.push_back(Entry{when, next_sequence_++, slot, s.generation});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  ++live_timers_;
  // Slot + 1 keeps the value non-zero; the generation tells a reused slot apart.
  return world::TimerId{(uint64_t{s.generation} << 32) | (uint64_t{slot} + 1)};
}

bool EventLoop::cancel(world::TimerId id) {
  if (!id.valid()) return false;
  const uint64_t index = (id.value & 0xFFFF'FFFF) - 1;
  const auto generation = static_cast<uint32_t>(id.value >> 32);
  if (index >= slots_.size()) return false;
  Slot& s = slots_[index];
  if (!s.armed || s.generation != generation) return false;
  s.callback = nullptr;
  release(static_cast<uint32_t>(index));
  prune();
  return true;
}

void EventLoop::release(uint32_t slot) {
  Slot& s = slots_[slot];
  s.armed = false;
  ++s.generation;
  if (s.generation == 0) s.generation = 1;
  free_slots_.push_back(slot);
  --live_timers_;
}

void EventLoop::prune() {
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    const Slot& s = slots_[top.slot];
    if (s.armed && s.generation == top.generation) return;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
}

void EventLoop::defer(world::TimerCallback callback) {
  deferred_.push_back(std::move(callback));
}

void EventLoop::add_fd(int fd, uint32_t events, FdHandler handler) {
  if (fd < 0) throw Error("event loop: cannot watch fd {}", fd);
  const auto index = static_cast<size_t>(fd);
  if (index >= fd_handlers_.size()) fd_handlers_.resize(index + 1);
  if (fd_handlers_[index]) throw Error("event loop: fd {} is already watched", fd);
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    throw Error("event loop: cannot watch fd {}: {}", fd, std::strerror(errno));
  }
  fd_handlers_[index] = std::make_unique<FdHandler>(std::move(handler));
}

void EventLoop::modify_fd(int fd, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) {
    throw Error("event loop: cannot change events of fd {}: {}", fd, std::strerror(errno));
  }
}

void EventLoop::remove_fd(int fd) {
  const auto index = static_cast<size_t>(fd);
  if (fd < 0 || index >= fd_handlers_.size() || !fd_handlers_[index]) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  retired_.push_back(std::move(fd_handlers_[index]));
}

bool EventLoop::run_due_timers() {
  // Only timers due when the pass started: a callback re-arming itself at now() cannot starve
  // the sockets.
  const Time now_at_start = now();
  const uint64_t sequence_limit = next_sequence_;
  bool ran = false;
  while (!heap_.empty()) {
    const Entry top = heap_.front();
    if (top.when > now_at_start || top.sequence >= sequence_limit) break;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
    Slot& s = slots_[top.slot];
    if (!s.armed || s.generation != top.generation) continue;
    world::TimerCallback callback = std::move(s.callback);
    s.callback = nullptr;
    release(top.slot);
    callback();
    run_deferred();
    ran = true;
  }
  prune();
  return ran;
}

bool EventLoop::run_deferred() {
  // Generation after generation while they are short (a message's path through transport,
  // NIC and port is a few of them: running them at once keeps latency low), but a chain that
  // keeps deferring more stops after kDeferredBudget so the sockets are polled (see defer()).
  // Unbounded, a sender whose every transmit completion posted more work once ran here for
  // milliseconds while its ACKs aged in the socket (3.4 ms on average) and its retransmission
  // timer fired.
  if (deferred_.empty()) return false;
  const Time start = now();
  do {
    running_deferred_.swap(deferred_);
    for (auto& callback : running_deferred_) callback();
    running_deferred_.clear();
  } while (!deferred_.empty() && now() - start < kDeferredBudget);
  return true;
}

void EventLoop::run_once(Time deadline) {
  // A timer that fell due while the process was away (descheduled, or busy in a long handler)
  // must not judge late what already waits in a socket: an ACK sitting there would turn a tail
  // probe or a retransmission timeout into a spurious resend. Read what is ready first.
  prune();
  if (!heap_.empty() && heap_.front().when <= now()) {
    timespec no_wait{};
    dispatch_ready(&no_wait);
    if (stopped_) return;
  }
  const bool timers_ran = run_due_timers();
  const bool deferred_ran = run_deferred();
  if (stopped_) return;  // a timer stopped the loop: do not block in epoll first
  // Work that ran may have made the caller's run_until condition true: only poll this pass.
  const bool worked = timers_ran || deferred_ran;
  // epoll_pwait2 takes a nanosecond timeout, so sub-millisecond RC timers fire on time.
  timespec timeout{};
  timespec* timeout_ptr = &timeout;
  if (!config_.busy_poll && !worked) {
    Time wake = deadline;
    if (!heap_.empty()) wake = std::min(wake, heap_.front().when);
    if (!deferred_.empty()) wake = Time::zero();
    if (wake == Time::max()) {
      timeout_ptr = nullptr;
    } else {
      const int64_t wait_ns = std::max<int64_t>((wake - now()).picoseconds() / 1000, 0);
      timeout.tv_sec = static_cast<time_t>(wait_ns / 1'000'000'000);
      timeout.tv_nsec = static_cast<long>(wait_ns % 1'000'000'000);
    }
  }
  dispatch_ready(timeout_ptr);
}

void EventLoop::dispatch_ready(const timespec* timeout) {
  const int n = epoll_pwait2(epoll_fd_, events_.data(), config_.max_events, timeout, nullptr);
  if (n < 0) {
    if (errno == EINTR) return;
    throw Error("event loop: epoll_wait failed: {}", std::strerror(errno));
  }
  for (int i = 0; i < n; ++i) {
    const auto index = static_cast<size_t>(events_[static_cast<size_t>(i)].data.fd);
    // A handler earlier in this pass may have removed this fd.
    if (index >= fd_handlers_.size() || !fd_handlers_[index]) continue;
    FdHandler* handler = fd_handlers_[index].get();
    (*handler)(events_[static_cast<size_t>(i)].events);
    run_deferred();
  }
  retired_.clear();
}

Time EventLoop::next_due() {
  if (!deferred_.empty()) return Time::zero();
  prune();
  return heap_.empty() ? Time::max() : heap_.front().when;
}

bool EventLoop::run_due() {
  const bool timers_ran = run_due_timers();
  return run_deferred() || timers_ran;
}

void EventLoop::run() {
  stopped_ = false;
  while (!stopped_) run_once();
}

bool EventLoop::run_until(const std::function<bool()>& done, Time deadline) {
  stopped_ = false;
  while (!stopped_) {
    if (done()) return true;
    if (now() >= deadline) break;
    run_once(deadline);
  }
  return done();
}

}  // namespace bifrost::real
