#include "bifrost/sim/metrics/counters.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::sim::metrics {

void PauseCounters::add(std::string_view port, Time start, Time end) {
  if (end < start) {
    throw Error("pause of {}: ends at {} ps, before it starts at {} ps", port, end.picoseconds(),
                start.picoseconds());
  }
  add_total(port, 1, end - start, end - start);
}

void PauseCounters::add_total(std::string_view port, uint64_t count, Time total, Time longest,
                              uint64_t frames) {
  if (total < Time::zero() || longest < Time::zero() || longest > total) {
    throw Error("pauses of {}: total {} ps and longest {} ps do not fit together", port,
                total.picoseconds(), longest.picoseconds());
  }
  auto it = ports_.find(port);
  if (it == ports_.end()) it = ports_.emplace(std::string(port), PortPauses{}).first;
  PortPauses& p = it->second;
  p.count += count;
  p.total += total;
  p.longest = std::max(p.longest, longest);
  p.frames += frames;
  count_ += count;
  total_ += total;
}

void DropCounters::add(std::string_view reason, uint64_t packets) {
  auto it = reasons_.find(reason);
  if (it == reasons_.end()) it = reasons_.emplace(std::string(reason), 0).first;
  it->second += packets;
  total_ += packets;
}

}  // namespace bifrost::sim::metrics
