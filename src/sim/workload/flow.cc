#include "bifrost/sim/workload/flow.h"

#include <algorithm>

namespace bifrost::sim::workload {

std::vector<Flow> merge_flows(std::vector<std::vector<Flow>> lists) {
  std::vector<Flow> merged;
  std::size_t total = 0;
  for (const auto& list : lists) total += list.size();
  merged.reserve(total);
  for (auto& list : lists) {
    for (auto& flow : list) merged.push_back(std::move(flow));
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [](const Flow& a, const Flow& b) { return a.start < b.start; });
  renumber(merged);
  return merged;
}

void renumber(std::vector<Flow>& flows) {
  uint64_t next = 0;
  for (auto& flow : flows) flow.id = next++;
}

}  // namespace bifrost::sim::workload
