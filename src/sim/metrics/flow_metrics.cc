#include "bifrost/sim/metrics/flow_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::sim::metrics {

std::string size_label(Bytes size) {
  struct Unit {
    uint64_t bytes;
    std::string_view name;
  };
  static constexpr Unit kUnits[] = {{1'000'000'000, "GB"}, {uint64_t{1} << 30, "GiB"},
                                    {1'000'000, "MB"},     {uint64_t{1} << 20, "MiB"},
                                    {1'000, "KB"},         {uint64_t{1} << 10, "KiB"}};
  const uint64_t n = size.count();
  for (const Unit& u : kUnits) {
    if (n != 0 && n % u.bytes == 0) return fmt::format("{}{}", n / u.bytes, u.name);
  }
  return fmt::format("{}B", n);
}

SizeBuckets::SizeBuckets(std::vector<Bytes> edges) : edges_(std::move(edges)) {
  for (std::size_t i = 0; i < edges_.size(); ++i) {
    if (edges_[i].count() == 0) throw Error("size bucket edges must be above 0 bytes");
    if (i > 0 && edges_[i] <= edges_[i - 1]) {
      throw Error("size bucket edges must increase: {} bytes follows {} bytes", edges_[i].count(),
                  edges_[i - 1].count());
    }
  }
}

SizeBuckets SizeBuckets::standard() {
  return SizeBuckets({Bytes(10'000), Bytes(100'000), Bytes(1'000'000)});
}

std::size_t SizeBuckets::bucket_of(Bytes size) const {
  return static_cast<std::size_t>(std::upper_bound(edges_.begin(), edges_.end(), size) -
                                  edges_.begin());
}

Bytes SizeBuckets::lower(std::size_t bucket) const {
  return bucket == 0 ? Bytes(0) : edges_.at(bucket - 1);
}

std::optional<Bytes> SizeBuckets::upper(std::size_t bucket) const {
  if (bucket >= edges_.size()) return std::nullopt;
  return edges_[bucket];
}

std::string SizeBuckets::label(std::size_t bucket) const {
  if (edges_.empty()) return "any size";
  if (bucket == 0) return "<" + size_label(edges_[0]);
  if (bucket >= edges_.size()) return ">=" + size_label(edges_.back());
  return size_label(edges_[bucket - 1]) + "-" + size_label(edges_[bucket]);
}

FlowMetrics::FlowMetrics() : FlowMetrics(SizeBuckets::standard(), {50, 95, 99, 99.9}) {}

FlowMetrics::FlowMetrics(SizeBuckets buckets, std::vector<double> percentiles)
    : buckets_(std::move(buckets)),
      percentiles_(std::move(percentiles)),
      buckets_samples_(buckets_.count()) {
  for (double p : percentiles_) {
    if (!(p >= 0 && p <= 100)) throw Error("percentile {} is outside [0, 100]", p);
  }
}

void FlowMetrics::add(FlowRecord record) {
  if (record.ideal_fct <= Time::zero()) {
    throw Error("flow {}: the ideal FCT must be positive, got {} ps", record.id,
                record.ideal_fct.picoseconds());
  }
  if (record.finish) {
    if (*record.finish < record.start) {
      throw Error("flow {}: finishes at {} ps, before its start at {} ps", record.id,
                  record.finish->picoseconds(), record.start.picoseconds());
    }
    const double slowdown = record.slowdown();
    const double fct_us = record.fct().microseconds();
    buckets_samples_[buckets_.bucket_of(record.size)].add(slowdown, fct_us);
    all_.add(slowdown, fct_us);
    ++finished_;
  }
  records_.push_back(std::move(record));
}

void FlowMetrics::Samples::add(double slowdown_value, double fct_us_value) {
  slowdown.add(slowdown_value);
  fct_us.add(fct_us_value);
  slowdown_sum += slowdown_value;
  fct_us_sum += fct_us_value;
}

SlowdownSummary FlowMetrics::summarize(std::string label, Bytes lower, std::optional<Bytes> upper,
                                       const Samples& samples) const {
  SlowdownSummary s;
  s.label = std::move(label);
  s.lower = lower;
  s.upper = upper;
  s.flows = samples.slowdown.count();
  if (samples.slowdown.empty()) return s;
  const auto n = static_cast<double>(samples.slowdown.count());
  s.mean = samples.slowdown_sum / n;
  s.mean_fct_us = samples.fct_us_sum / n;
  for (double p : percentiles_) {
    s.percentiles.push_back(samples.slowdown.percentile(p));
    s.fct_us.push_back(samples.fct_us.percentile(p));
  }
  return s;
}

std::vector<SlowdownSummary> FlowMetrics::by_size() const {
  std::vector<SlowdownSummary> out;
  for (std::size_t b = 0; b < buckets_.count(); ++b) {
    out.push_back(
        summarize(buckets_.label(b), buckets_.lower(b), buckets_.upper(b), buckets_samples_[b]));
  }
  out.push_back(summarize("all", Bytes(0), std::nullopt, all_));
  return out;
}

}  // namespace bifrost::sim::metrics
