#pragma once
// Per-flow results, FCT and FCT slowdown statistics. The caller reports each flow with its start,
// finish and ideal FCT (the time it would take alone on an empty network, which only the
// simulator's topology knows); slowdown is FCT / ideal FCT, so 1 is perfect.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/percentiles.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

struct FlowRecord {
  uint64_t id = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  Bytes size;
  Time start;
  std::optional<Time> finish;  // nullopt: still running when the run ended
  Time ideal_fct;
  std::string tag;

  bool finished() const { return finish.has_value(); }
  // Both need a finished flow.
  Time fct() const { return *finish - start; }
  double slowdown() const {
    return static_cast<double>(fct().picoseconds()) / static_cast<double>(ideal_fct.picoseconds());
  }
};

// Flow-size buckets from increasing upper edges e1 < e2 < ... < en:
// [0, e1), [e1, e2), ..., [en, infinity). A flow of exactly e_i bytes is in the bucket e_i opens.
class SizeBuckets {
 public:
  // Throws Error unless the edges are above zero and strictly increasing.
  explicit SizeBuckets(std::vector<Bytes> edges);
  // <10KB, 10KB-100KB, 100KB-1MB, >=1MB.
  static SizeBuckets standard();

  std::size_t count() const { return edges_.size() + 1; }
  std::size_t bucket_of(Bytes size) const;
  Bytes lower(std::size_t bucket) const;
  std::optional<Bytes> upper(std::size_t bucket) const;  // nullopt for the last
  // "<10KB", "10KB-100KB", ">=1MB"; "any size" when there are no edges.
  std::string label(std::size_t bucket) const;
  const std::vector<Bytes>& edges() const { return edges_; }

 private:
  std::vector<Bytes> edges_;
};

// "10KB", "1MiB", "1500B": the shortest exact name of a size, for labels.
std::string size_label(Bytes size);

// Slowdown and FCT of the finished flows of one size bucket.
struct SlowdownSummary {
  std::string label;
  Bytes lower;
  std::optional<Bytes> upper;
  uint64_t flows = 0;
  std::optional<double> mean;         // nullopt when no flow finished in the bucket
  std::vector<double> percentiles;    // one per requested percentile; empty when no flow
  std::optional<double> mean_fct_us;  // the FCTs themselves (microseconds), likewise
  std::vector<double> fct_us;
};

class FlowMetrics {
 public:
  // Standard buckets; percentiles 50, 95, 99 and 99.9.
  FlowMetrics();
  // `percentiles` in [0, 100] (nearest rank, see core/percentiles.h), else Error.
  FlowMetrics(SizeBuckets buckets, std::vector<double> percentiles);

  // Throws Error for a finish before the start or an ideal FCT that is not positive.
  void add(FlowRecord record);

  const std::vector<FlowRecord>& records() const { return records_; }
  uint64_t finished() const { return finished_; }
  uint64_t unfinished() const { return records_.size() - finished_; }
  const SizeBuckets& buckets() const { return buckets_; }
  const std::vector<double>& percentiles() const { return percentiles_; }

  // Slowdown of finished flows: one summary per size bucket, then one over all sizes ("all").
  std::vector<SlowdownSummary> by_size() const;

 private:
  // Slowdowns and FCTs of the finished flows of one bucket (or of all).
  struct Samples {
    ExactPercentiles slowdown;
    ExactPercentiles fct_us;
    double slowdown_sum = 0;
    double fct_us_sum = 0;
    void add(double slowdown, double fct_us);
  };
  SlowdownSummary summarize(std::string label, Bytes lower, std::optional<Bytes> upper,
                            const Samples& samples) const;

  SizeBuckets buckets_;
  std::vector<double> percentiles_;
  std::vector<FlowRecord> records_;
  uint64_t finished_ = 0;
  std::vector<Samples> buckets_samples_;  // per bucket
  Samples all_;
};

}  // namespace bifrost::sim::metrics
