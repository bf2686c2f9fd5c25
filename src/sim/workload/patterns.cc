#include "bifrost/sim/workload/patterns.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "spec_checks.h"

namespace bifrost::sim::workload {

using detail::check_hosts;
using detail::check_not_negative;
using detail::check_priority;
using detail::check_size;
using detail::generator_label;
using detail::jittered;

namespace {

template <typename Spec>
void check_common(const Spec& spec, const std::string& label) {
  check_size(spec.size, label);
  check_priority(spec.priority, label);
  check_not_negative(spec.start, "start", label);
  check_not_negative(spec.jitter, "jitter", label);
  if (spec.jitter > Time::max() - spec.start) {
    throw Error("{}: start plus jitter is beyond the end of simulated time", label);
  }
}

Flow make_flow(uint32_t src, uint32_t dst, Bytes size, Time start, uint8_t priority,
               const std::string& tag) {
  return Flow{0, src, dst, size, start, priority, tag};
}

}  // namespace

std::vector<Flow> generate_incast(const IncastSpec& spec, const RandomStream& rng) {
  const std::string label = generator_label("incast", spec.tag);
  check_common(spec, label);
  check_hosts(spec.senders, "senders", 1, label);
  if (std::find(spec.senders.begin(), spec.senders.end(), spec.receiver) != spec.senders.end()) {
    throw Error("{}: the receiver, host {}, is also a sender", label, spec.receiver);
  }
  if (spec.rounds == 0) throw Error("{}: rounds must be at least 1", label);
  if (spec.rounds > 1 && spec.period <= Time::zero()) {
    throw Error("{}: {} rounds need a period greater than zero", label, spec.rounds);
  }
  if (spec.rounds > 1 &&
      (Time::max() - spec.start - spec.jitter) / spec.period < int64_t{spec.rounds} - 1) {
    throw Error("{}: round {} would start beyond the end of simulated time", label,
                spec.rounds - 1);
  }
  RandomStream draws = rng;
  std::vector<Flow> flows;
  flows.reserve(static_cast<std::size_t>(spec.rounds) * spec.senders.size());
  for (uint32_t round = 0; round < spec.rounds; ++round) {
    const Time round_start = spec.start + spec.period * round;
    for (uint32_t sender : spec.senders) {
      flows.push_back(make_flow(sender, spec.receiver, spec.size,
                                jittered(round_start, spec.jitter, draws), spec.priority,
                                spec.tag));
    }
  }
  detail::order_by_start(flows);
  return flows;
}

std::vector<Flow> generate_all_to_all(const AllToAllSpec& spec, const RandomStream& rng) {
  const std::string label = generator_label("all-to-all", spec.tag);
  check_common(spec, label);
  check_hosts(spec.hosts, "hosts", 2, label);
  RandomStream draws = rng;
  std::vector<Flow> flows;
  flows.reserve(spec.hosts.size() * (spec.hosts.size() - 1));
  for (uint32_t src : spec.hosts) {
    for (uint32_t dst : spec.hosts) {
      if (src == dst) continue;
      flows.push_back(make_flow(src, dst, spec.size, jittered(spec.start, spec.jitter, draws),
                                spec.priority, spec.tag));
    }
  }
  detail::order_by_start(flows);
  return flows;
}

std::vector<uint32_t> random_derangement(uint32_t n, RandomStream& rng) {
  if (n < 2) throw Error("a derangement needs at least 2 elements, got {}", n);
  std::vector<uint32_t> d(n);
  for (;;) {
    for (uint32_t i = 0; i < n; ++i) d[i] = i;
    // Fisher-Yates: every permutation equally likely; rejecting those with a fixed point leaves
    // every derangement equally likely.
    for (uint32_t i = n - 1; i > 0; --i) {
      std::swap(d[i], d[rng.uniform_int(0, i)]);
    }
    bool fixed_point = false;
    for (uint32_t i = 0; i < n && !fixed_point; ++i) fixed_point = d[i] == i;
    if (!fixed_point) return d;
  }
}

std::vector<Flow> generate_permutation(const PermutationSpec& spec, const RandomStream& rng) {
  const std::string label = generator_label("permutation", spec.tag);
  check_common(spec, label);
  check_hosts(spec.hosts, "hosts", 2, label);
  RandomStream draws = rng;
  const auto n = static_cast<uint32_t>(spec.hosts.size());
  const std::vector<uint32_t> d = random_derangement(n, draws);
  std::vector<Flow> flows;
  flows.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    flows.push_back(make_flow(spec.hosts[i], spec.hosts[d[i]], spec.size,
                              jittered(spec.start, spec.jitter, draws), spec.priority, spec.tag));
  }
  detail::order_by_start(flows);
  return flows;
}

}  // namespace bifrost::sim::workload
