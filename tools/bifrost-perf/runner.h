#pragma once
// What every bifrost-perf test loop shares: deferred posting, the 100 ms watchdog (peer
// liveness on the control connection, no-progress timeout, peak bandwidth, progress lines)
// and the first failure, which ends the run with an Error.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "results.h"
#include "session.h"

namespace bifrost::perf {

class Runner {
 public:
  Runner(Session& s, uint32_t size) : s_(s), o_(s.options()), size_(size) {}
  virtual ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Runs until done() or a failure; throws Error on failure. `watch_channel`: anything on the
  // control connection during the run is the peer's error or death.
  void run(bool watch_channel);
  // Messages this side checked with --verify: intact, and corrupt.
  uint64_t verified() const { return verified_; }
  uint64_t corrupt() const { return corrupt_; }

 protected:
  virtual void post_more() = 0;
  virtual bool done() const = 0;
  virtual uint64_t progress_bytes() const = 0;
  // Retransmissions so far, for the progress line.
  virtual uint64_t retransmissions() const;
  // What a "no progress" error should add to say where things stand.
  virtual std::string stall_details() const { return ""; }

  void fail(std::string why) {
    if (failure_.empty()) failure_ = std::move(why);
  }
  bool failed() const { return !failure_.empty(); }
  void schedule_post();
  void progressed() { last_progress_ = s_.loop().now(); }
  // Counts `bytes` (a whole delivered message) as intact or corrupt against pattern `seed`
  // from pattern offset `offset`.
  void check(uint32_t seed, std::span<const std::byte> bytes, const char* what, uint64_t k,
             uint64_t offset = 0);

  // --verify at a receiver: a message of `length` bytes on lane (QP or connection) `lane` must
  // be size_ bytes long, name an index k in its first bytes, arrive only once and hold
  // pattern message_seed(lane, k) after the index. Counts corrupt messages and repeats
  // (reporting the first of each); returns k if the message names an index.
  std::optional<uint64_t> verify_arrival(size_t lane, std::span<const std::byte> bytes,
                                         uint64_t length);

  // What this side verified, for the peer: counts of verify_arrival and check.
  PeerStats verify_stats(uint64_t delivered) const;

  Session& s_;
  const Options& o_;
  uint32_t size_;
  Time start_;
  double peak_bps_ = 0;
  uint64_t verified_ = 0;
  uint64_t corrupt_ = 0;
  uint64_t duplicates_ = 0;  // messages that arrived more than once (verify_arrival)

 private:
  void arm_tick();
  void on_tick();

  world::TimerId tick_;
  Time last_progress_;
  Time last_tick_;
  uint64_t tick_bytes_ = 0;
  uint64_t ticks_ = 0;
  uint64_t last_rx_ = 0;
  bool watch_channel_ = true;
  bool post_scheduled_ = false;
  std::string failure_;
  std::vector<std::vector<uint8_t>> seen_;  // per lane, by message index (verify_arrival)
};

}  // namespace bifrost::perf
