#include "latency_stats.h"

#include <algorithm>
#include <cmath>

namespace bifrost::perf {

SizeResult latency_result(std::vector<double>& samples, uint32_t bytes) {
  SizeResult r;
  r.bytes = bytes;
  r.iterations = samples.size();
  set_latency_columns(r, samples);
  return r;
}

void set_latency_columns(SizeResult& r, std::vector<double>& samples) {
  if (samples.empty()) return;
  std::sort(samples.begin(), samples.end());
  // Nearest rank: the smallest sample with at least q of the samples at or below it.
  const auto at = [&](double q) {
    const auto i = static_cast<size_t>(std::ceil(q * static_cast<double>(samples.size())));
    return samples[std::min(samples.size() - 1, i == 0 ? 0 : i - 1)];
  };
  double sum = 0;
  for (double v : samples) sum += v;
  r.t_avg = sum / static_cast<double>(samples.size());
  double var = 0;
  for (double v : samples) var += (v - r.t_avg) * (v - r.t_avg);
  r.t_stdev = std::sqrt(var / static_cast<double>(samples.size()));
  r.t_min = samples.front();
  r.t_max = samples.back();
  r.t_p10 = at(0.1);
  r.t_typical = at(0.5);
  r.t_p90 = at(0.9);
  r.t_p99 = at(0.99);
  r.t_p999 = at(0.999);
}

}  // namespace bifrost::perf
