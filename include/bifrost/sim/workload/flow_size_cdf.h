#pragma once
// Empirical flow-size distributions: a piecewise-linear CDF through (size, cumulative fraction)
// points, the form in which datacenter traces are published (WebSearch, FB_Hadoop, ...).
//
// Between two points the probability is spread evenly over the sizes, so the distribution is a
// mixture of uniforms, and its mean is exact: sum over segments of (F_i - F_{i-1}) times the
// segment's midpoint (x_{i-1} + x_i) / 2. Two points with the same size and rising fraction
// are a point mass at that size (FlowSizeCdf::constant uses this).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rng.h"

namespace bifrost::sim::workload {

// Sizes stay exact through the interpolation's double arithmetic up to 2^53 bytes (8 PiB).
inline constexpr uint64_t kMaxCdfBytes = uint64_t{1} << 53;

struct CdfPoint {
  uint64_t bytes = 0;
  double fraction = 0;  // P(size <= bytes), in [0, 1]

  bool operator==(const CdfPoint&) const = default;
};

class FlowSizeCdf {
 public:
  // Throws Error, naming `source`, unless there are at least two points, sizes are at most
  // kMaxCdfBytes, sizes and fractions never decrease, no point repeats, the first fraction is
  // exactly 0 and the last exactly 1.
  FlowSizeCdf(std::vector<CdfPoint> points, std::string source);

  // Every flow has `size` bytes (size >= 1).
  static FlowSizeCdf constant(Bytes size);

  const std::vector<CdfPoint>& points() const { return points_; }
  // Where the points came from (a file name or "built-in websearch"), for messages.
  const std::string& source() const { return source_; }

  // The exact mean of the piecewise-linear distribution, in bytes.
  double mean_bytes() const { return mean_; }
  Bytes min_size() const { return Bytes(points_.front().bytes); }
  Bytes max_size() const { return Bytes(points_.back().bytes); }

  // The inverse CDF: the size s with F(s) = p, interpolated linearly; p in [0, 1], else Error.
  double quantile(double p) const;
  // Inverse-transform sampling: quantile(u) for u uniform in [0, 1), rounded to the nearest
  // byte and at least 1 byte (a flow carries data).
  Bytes sample(RandomStream& rng) const;

 private:
  std::vector<CdfPoint> points_;
  std::string source_;
  double mean_ = 0;
};

// Reads the bifrost CDF file format: one point per line as "flow_size_bytes cumulative_percent"
// (the HPCC traffic generator's format, so its tables load unchanged), '#' comments and blank
// lines ignored. Throws Error naming "source:line" and what was expected.
FlowSizeCdf parse_cdf_text(std::string_view text, std::string_view source);
// parse_cdf_text on a file's contents; throws Error if the file cannot be read.
FlowSizeCdf load_cdf_file(const std::filesystem::path& path);

}  // namespace bifrost::sim::workload
