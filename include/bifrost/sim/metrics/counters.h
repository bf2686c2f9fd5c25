#pragma once
// Event counters: PFC (or other) pauses per port with their durations, and packet drops by
// reason. Maps keep names sorted, so output files are in a stable order.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

class PauseCounters {
 public:
  struct PortPauses {
    uint64_t count = 0;
    Time total;
    Time longest;
    uint64_t frames = 0;  // pause frames received, zero-time (resume) frames included
  };

  // `port` (a name such as "sw0/p3/prio3") was paused from `start` to `end`; Error if end is
  // before start.
  void add(std::string_view port, Time start, Time end);
  // `count` pauses of `port` lasting `total` together, the longest `longest`, carried by
  // `frames` pause frames (for sources that keep totals rather than every episode, such as a
  // PFC gate).
  void add_total(std::string_view port, uint64_t count, Time total, Time longest,
                 uint64_t frames = 0);

  const std::map<std::string, PortPauses, std::less<>>& by_port() const { return ports_; }
  uint64_t count() const { return count_; }
  Time total() const { return total_; }

 private:
  std::map<std::string, PortPauses, std::less<>> ports_;
  uint64_t count_ = 0;
  Time total_;
};

class DropCounters {
 public:
  void add(std::string_view reason, uint64_t packets = 1);

  const std::map<std::string, uint64_t, std::less<>>& by_reason() const { return reasons_; }
  uint64_t total() const { return total_; }

 private:
  std::map<std::string, uint64_t, std::less<>> reasons_;
  uint64_t total_ = 0;
};

}  // namespace bifrost::sim::metrics
