#pragma once
// Jain's fairness index of an allocation (throughputs, goodputs, shares):
// (sum x)^2 / (n * sum x^2). It is 1 when all n shares are equal and 1/n when one entity takes
// everything. All-zero input counts as perfectly fair (everyone got the same) and gives 1.
// Throws Error for empty input (there is nobody to be fair to) and for negative, infinite or
// NaN shares, which are not allocations.
#include <span>

namespace bifrost {

double jain_fairness_index(std::span<const double> shares);

}  // namespace bifrost
