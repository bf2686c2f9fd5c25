#pragma once
// MP WRITEs from side 0 of a VirtuosoBed into side 1, one at a time: the next is posted when
// the last completes (the paper's application blocks on each MP completion), from one buffer
// into one target, until stopped or `count` of them completed.
#include <cstdint>
#include <functional>
#include <vector>

#include "bifrost/sim/virtuoso_bed.h"

namespace bifrost::virtuoso_bench {

class Writer {
 public:
  // `on_done` (optional) sees each MP WRITE's completion time minus its post time.
  Writer(sim::VirtuosoBed& bed, transport::virtuoso::MpConnection& connection, uint64_t length,
         std::function<void(Time fct)> on_done = {});
  // Posts the first; `count` = 0: no limit.
  void start(uint64_t count = 0);
  // Posts one now if none is open (for writers driven by a clock instead).
  bool post_one();
  void stop() { stopped_ = true; }
  uint64_t completed() const { return completed_; }
  uint64_t failed() const { return failed_; }
  bool open() const { return open_; }

 private:
  sim::VirtuosoBed& bed_;
  transport::virtuoso::MpConnection& connection_;
  uint64_t length_;
  std::function<void(Time)> on_done_;
  uint64_t src_ = 0;
  uint64_t dst_ = 0;
  uint64_t limit_ = 0;
  uint64_t completed_ = 0;
  uint64_t failed_ = 0;
  uint64_t next_id_ = 0;
  Time posted_;
  bool open_ = false;
  bool stopped_ = false;
  bool chained_ = false;  // start(): each completion posts the next
};

}  // namespace bifrost::virtuoso_bench
