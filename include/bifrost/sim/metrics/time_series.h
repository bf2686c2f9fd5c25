#pragma once
// Samples over time: link throughput from byte counters, and queue lengths. Series are
// registered once by name and then sampled by index, so the simulator's periodic sampling does
// no string work.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

class ThroughputSeries {
 public:
  struct Sample {
    uint32_t link = 0;
    Time start;
    Time end;
    Bytes bytes;  // sent during [start, end)
    double gbps() const;
  };

  // Registers a link and returns its index for sample(); Error if the name is taken.
  uint32_t add_link(std::string name);
  // Link `link` has sent `cumulative` bytes in total by time `at`. Records the bytes sent since
  // the link's previous sample; the first sample of a link only sets the baseline. Throws Error
  // for an unknown link, a time not after the previous sample, or a counter that went down.
  void sample(uint32_t link, Time at, Bytes cumulative);

  const std::vector<std::string>& links() const { return names_; }
  const std::vector<Sample>& samples() const { return samples_; }

 private:
  struct Last {
    bool seen = false;
    Time at;
    Bytes cumulative;
  };
  std::vector<std::string> names_;
  std::unordered_set<std::string> taken_;
  std::vector<Last> last_;
  std::vector<Sample> samples_;
};

class QueueSeries {
 public:
  struct Sample {
    uint32_t queue = 0;
    Time at;
    Bytes length;
  };

  // Registers a queue and returns its index for sample(); Error if the name is taken.
  uint32_t add_queue(std::string name);
  // Throws Error for an unknown queue.
  void sample(uint32_t queue, Time at, Bytes length);

  const std::vector<std::string>& queues() const { return names_; }
  const std::vector<Sample>& samples() const { return samples_; }

 private:
  std::vector<std::string> names_;
  std::unordered_set<std::string> taken_;
  std::vector<Sample> samples_;
};

}  // namespace bifrost::sim::metrics
