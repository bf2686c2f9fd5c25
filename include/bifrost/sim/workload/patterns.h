#pragma once
// Fixed traffic patterns: incast, all-to-all and permutation. Each flow may start late by a
// jitter drawn uniformly from [0, jitter] picoseconds, so synchronized senders can be
// de-synchronized by a known amount. Host indices in a spec must be distinct.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rng.h"
#include "bifrost/core/time.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim::workload {

// N:1 incast: every sender sends `size` bytes to `receiver`, `rounds` times, round r starting
// at start + r * period.
struct IncastSpec {
  std::vector<uint32_t> senders;
  uint32_t receiver = 0;
  Bytes size;
  Time start;
  Time jitter;
  uint32_t rounds = 1;
  Time period;  // needed (> 0) only when rounds > 1
  uint8_t priority = 0;
  std::string tag;
};

// A pattern over one set of hosts, each flow `size` bytes.
struct HostSetSpec {
  std::vector<uint32_t> hosts;
  Bytes size;
  Time start;
  Time jitter;
  uint8_t priority = 0;
  std::string tag;
};

// Every host sends `size` bytes to every other host: n * (n - 1) flows.
using AllToAllSpec = HostSetSpec;
// hosts[i] sends `size` bytes to hosts[d[i]] for a uniformly random derangement d (no host
// sends to itself, every host receives exactly one flow).
using PermutationSpec = HostSetSpec;

// Each returns flows ordered by start time (ties in generation order), ids 0, 1, ..., and
// throws Error for an invalid spec (empty or repeated hosts, receiver among the senders, zero
// size, priority of 8 or more, negative times, rounds > 1 without a positive period).
std::vector<Flow> generate_incast(const IncastSpec& spec, const RandomStream& rng);
std::vector<Flow> generate_all_to_all(const AllToAllSpec& spec, const RandomStream& rng);
std::vector<Flow> generate_permutation(const PermutationSpec& spec, const RandomStream& rng);

// A uniformly random derangement of 0 .. n-1 (d[i] != i for every i); n >= 2, else Error.
// Draws shuffles until one has no fixed point (about e shuffles on average).
std::vector<uint32_t> random_derangement(uint32_t n, RandomStream& rng);

}  // namespace bifrost::sim::workload
