#pragma once
// The NIC's hardware rate limiters, as RoGUE drives them: a pacing clock per QP (or per
// priority class, see RateLimiterBank), driven by the caller with explicit times.
//
// Pacing: a packet of L bytes charged at time `now` moves the pacing clock to
//   next = max(next, now - serialization_time(burst, rate)) + serialization_time(L, rate),
// and the next packet may start at `next`. This is the GCRA (virtual-scheduling form of a token
// bucket): an idle limiter regains at most `burst` bytes of credit, so after any idle period at
// most `burst` bytes beyond the steady pace (rounded up to a whole packet) leave back to back.
//
// Rate changes: RoGUE measured that a new limit reaches the wire only after up to 160 KB more
// have been sent on ConnectX-3/4, so set_rate() takes effect after `change_delay` bytes. A
// packet is charged at the rate in force when it starts: the packet that crosses the boundary
// is still charged at the old rate, the first packet that starts after it at the new one.
// A newer set_rate() before the pending one took effect replaces the pending rate but does not
// restart the byte counter: the update already in flight in the NIC picks up whatever rate is
// latest when it lands. Restarting would let a controller that updates more often than every
// `change_delay` bytes starve its own updates forever.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::rnic {

// RoGUE's worst measured rate-change delay on ConnectX-3/4 (bytes sent before a new limit holds).
inline constexpr Bytes kRogueRateChangeDelay{160'000};
// ConnectX-3 Pro has one hardware rate limiter per priority.
inline constexpr std::size_t kConnectX3ProLimiters = 8;

struct RateLimiterConfig {
  // Bytes sent after set_rate() before the new rate holds; 0 applies it at once.
  Bytes change_delay{0};
  // Credit an idle limiter may regain, in bytes beyond the steady pace (one 4 KB MTU by default).
  Bytes burst{4096};
};

class RateLimiter {
 public:
  // The "no limit" rate; set_rate(Rate::bps(0)) means the same.
  static constexpr Rate unlimited() { return Rate::bps(0); }

  explicit RateLimiter(RateLimiterConfig config = {});

  // Requests a new limit (0 = unlimited); throws Error for a negative rate. See the header note
  // for when it takes effect.
  void set_rate(Rate rate);
  // Earliest time the next packet may start. Never earlier than the last charged packet's start,
  // and earlier than the caller's `now` when the limiter has credit: the packet may go at once.
  Time next_send_time() const;
  // Charges a packet of `bytes` that starts at `now` (now >= next_send_time() when paced).
  void on_send(Time now, uint32_t bytes);

  // The rate in force (unlimited() when not limiting).
  Rate rate() const { return rate_; }
  bool limited() const { return rate_ != unlimited(); }
  // The rate that set_rate() asked for and that has not taken effect yet.
  std::optional<Rate> pending_rate() const { return pending_; }
  // Bytes still to send before the pending rate takes effect; 0 when nothing is pending.
  Bytes bytes_until_change() const { return pending_ ? until_change_ : Bytes(0); }
  // Every byte charged by on_send since the limiter was made, limited or not; never decreases.
  // RoGUE holds RTT samples off for the H bytes *transmitted* after a rate change: read this
  // at the change and wait until it has grown by H (bytes posted would run ahead of the wire).
  Bytes transmitted() const { return transmitted_; }
  const RateLimiterConfig& config() const { return config_; }

 private:
  void apply(Rate rate);

  RateLimiterConfig config_;
  Rate rate_ = unlimited();
  std::optional<Rate> pending_;
  Bytes until_change_{0};
  Time burst_time_;  // serialization_time(burst, rate_), cached per rate
  // Pacing clock; starts far in the past so a fresh limiter has its full burst.
  Time next_ = Time::ps(-Time::max().picoseconds());
  Time last_start_;  // start time of the last charged packet
  Bytes transmitted_{0};
};

// The "per-priority limiters" mode: a fixed set of limiters shared by QPs. The NIC maps each
// QP's priority to one limiter, so every QP of a class is paced by the same clock.
class RateLimiterBank {
 public:
  // Throws Error for an empty bank.
  explicit RateLimiterBank(std::size_t count = kConnectX3ProLimiters,
                           RateLimiterConfig config = {});

  // Throws Error for an index outside 0..size()-1.
  RateLimiter& limiter(std::size_t index);
  const RateLimiter& limiter(std::size_t index) const;
  std::size_t size() const { return limiters_.size(); }

 private:
  void check_index(std::size_t index) const;

  std::vector<RateLimiter> limiters_;
};

}  // namespace bifrost::rnic
