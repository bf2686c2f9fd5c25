#include "bifrost/transport/virtuoso/load_balancer.h"

#include <cmath>
#include <numeric>

#include "bifrost/core/error.h"

namespace bifrost::transport::virtuoso {

std::vector<uint64_t> ProportionalSplit::split(uint64_t total, std::span<const double> capacity,
                                               uint64_t block) const {
  if (capacity.empty()) throw Error("virtuoso split: no paths");
  if (block == 0) throw Error("virtuoso split: a zero block");
  double sum = 0;
  for (double c : capacity) {
    if (!(c > 0) || !std::isfinite(c)) throw Error("virtuoso split: a capacity of {}", c);
    sum += c;
  }
  const size_t n = capacity.size();
  std::vector<uint64_t> data(n, 0);
  // Whole blocks of each exact share, rounded down: every path is at or below total / sum.
  const uint64_t blocks = total / block;
  uint64_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto share =
        static_cast<uint64_t>(std::floor(static_cast<double>(blocks) * capacity[i] / sum));
    data[i] = std::min(share, blocks - given) * block;
    given += data[i] / block;
  }
  // The rest (at most 2n blocks and one partial block), each to the path that would finish it
  // first: no path then ends more than one block ahead of another's next (docs/transport.md).
  uint64_t rest = total - given * block;
  while (rest > 0) {
    const uint64_t piece = std::min(block, rest);
    size_t best = 0;
    double best_finish = 0;
    for (size_t i = 0; i < n; ++i) {
      const double finish = static_cast<double>(data[i] + piece) / capacity[i];
      if (i == 0 || finish < best_finish) {
        best = i;
        best_finish = finish;
      }
    }
    data[best] += piece;
    rest -= piece;
  }
  return data;
}

}  // namespace bifrost::transport::virtuoso
