#include "spec_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "bifrost/core/error.h"

namespace bifrost::sim::workload::detail {

std::string generator_label(std::string_view kind, std::string_view tag) {
  if (tag.empty()) return std::string(kind);
  return fmt::format("{} \"{}\"", kind, tag);
}

void check_priority(uint8_t priority, const std::string& label) {
  if (priority >= kPriorityClasses) {
    throw Error("{}: priority {} is not a class 0..{}", label, priority, kPriorityClasses - 1);
  }
}

void check_hosts(const std::vector<uint32_t>& hosts, std::string_view role, std::size_t min_count,
                 const std::string& label) {
  if (hosts.empty()) throw Error("{}: no {}", label, role);
  if (hosts.size() < min_count) {
    throw Error("{}: needs at least {} {}, got {}", label, min_count, role, hosts.size());
  }
  std::unordered_set<uint32_t> seen;
  for (uint32_t h : hosts) {
    if (!seen.insert(h).second) throw Error("{}: host {} appears twice in {}", label, h, role);
  }
}

void check_size(Bytes size, const std::string& label) {
  if (size.count() == 0) throw Error("{}: flow size must be at least 1 byte", label);
}

void check_not_negative(Time t, std::string_view name, const std::string& label) {
  if (t < Time::zero()) throw Error("{}: {} must not be negative", label, name);
}

Time jittered(Time start, Time jitter, RandomStream& rng) {
  if (jitter <= Time::zero()) return start;
  const auto offset = rng.uniform_int(0, static_cast<uint64_t>(jitter.picoseconds()));
  return start + Time::ps(static_cast<int64_t>(offset));
}

void order_by_start(std::vector<Flow>& flows) {
  std::stable_sort(flows.begin(), flows.end(),
                   [](const Flow& a, const Flow& b) { return a.start < b.start; });
  renumber(flows);
}

}  // namespace bifrost::sim::workload::detail
