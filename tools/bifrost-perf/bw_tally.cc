#include "bw_tally.h"

#include <algorithm>

namespace bifrost::perf {

BwTally::BwTally(const Options& o, size_t lanes, uint32_t size, Time now)
    : posted_(lanes), completed_(lanes), size_(size), duration_run_(o.duration > 0) {
  if (duration_run_) {
    stop_posting_ = now + Time::from_seconds(o.duration);
  } else {
    target_ = o.effective_iterations();
  }
}

void BwTally::on_completed(size_t lane, Time now) {
  ++completed_[lane];
  ++total_;
  last_completion_ = now;
}

bool BwTally::done(Time now) const {
  for (size_t lane = 0; lane < posted_.size(); ++lane) {
    if (completed_[lane] != posted_[lane] || posting_allowed(lane, now)) return false;
  }
  return true;
}

SizeResult BwTally::result(Time start, double peak_bps) const {
  SizeResult r;
  r.bytes = size_;
  r.iterations = total_;
  r.seconds = (last_completion_ - start).seconds();
  r.bw_avg_mbps = static_cast<double>(total_) * size_ / r.seconds / 1e6;
  r.bw_peak_mbps = std::max(r.bw_avg_mbps, peak_bps / 8 / 1e6);
  r.msg_rate_mpps = static_cast<double>(total_) / r.seconds / 1e6;
  return r;
}

}  // namespace bifrost::perf
