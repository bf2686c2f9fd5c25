#include "applied_rate.h"

#include <algorithm>

namespace bifrost::transport::rogue {

void AppliedRateModel::on_request(uint64_t through, std::optional<Rate> rate) {
  const uint64_t at = through + delay_;
  // Requests come in order of `through`; one landing no later than the last replaces it.
  while (!changes_.empty() && changes_.back().at >= at) changes_.pop_back();
  changes_.push_back(Change{.at = at, .rate = rate});
}

std::optional<Rate> AppliedRateModel::effective_rate(uint64_t first, uint64_t units) const {
  if (units == 0) return base_;
  double seconds = 0;
  bool limited = false;
  std::optional<Rate> rate = base_;
  uint64_t from = first;
  const uint64_t end = first + units;
  const auto add = [&](uint64_t to) {
    if (to <= from) return;
    limited = limited || rate.has_value();
    const double bps = static_cast<double>((rate ? *rate : line_rate_).bits_per_second());
    seconds += static_cast<double>(to - from) * 8 / bps;
    from = to;
  };
  for (const Change& c : changes_) {
    if (c.at >= end) break;
    add(std::max(c.at, first));
    rate = c.rate;
  }
  add(end);
  if (!limited) return std::nullopt;
  return Rate::bps(static_cast<int64_t>(static_cast<double>(units) * 8 / seconds + 0.5));
}

void AppliedRateModel::forget_before(uint64_t position) {
  while (!changes_.empty() && changes_.front().at <= position) {
    base_ = changes_.front().rate;
    changes_.pop_front();
  }
}

}  // namespace bifrost::transport::rogue
