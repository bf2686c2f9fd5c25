#pragma once
// The bookkeeping every bandwidth client shares, whatever it posts (verbs or transport
// messages): posted and completed counts per lane (a QP or a connection), the stop rule
// (-n iterations per lane, or -D seconds of posting) and the result row.
#include <cstdint>
#include <vector>

#include "bifrost/core/time.h"
#include "options.h"
#include "results.h"

namespace bifrost::perf {

class BwTally {
 public:
  BwTally(const Options& o, size_t lanes, uint32_t size, Time now);

  bool posting_allowed(size_t lane, Time now) const {
    return duration_run_ ? now < stop_posting_ : posted_[lane] < target_;
  }
  // Returns the index of the message just posted on `lane`.
  uint64_t on_posted(size_t lane) { return posted_[lane]++; }
  void on_completed(size_t lane, Time now);
  // Every lane has posted all it may and has all its completions back.
  bool done(Time now) const;

  size_t lanes() const { return posted_.size(); }
  uint64_t posted(size_t lane) const { return posted_[lane]; }
  uint64_t outstanding(size_t lane) const { return posted_[lane] - completed_[lane]; }
  uint64_t total() const { return total_; }
  // BW average and MsgRate from `start` to the last completion; BW peak is the watchdog's best
  // interval (`peak_bps`) or the average if the run was shorter than one.
  SizeResult result(Time start, double peak_bps) const;

 private:
  std::vector<uint64_t> posted_;
  std::vector<uint64_t> completed_;
  uint32_t size_;
  bool duration_run_;
  uint64_t target_ = 0;
  uint64_t total_ = 0;
  Time stop_posting_;
  Time last_completion_;
};

}  // namespace bifrost::perf
