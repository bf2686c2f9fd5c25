#pragma once
// One DCI run judged by the ground-truth oracle (dci_oracle.h): a random link, slot, k, drain
// and frame mix from a seed, and a variant of the algorithm (bifrost's, the paper's literal
// form, or a deliberately broken one).
#include <cstdint>

#include "bifrost/core/rng.h"
#include "bifrost/net/flowctl/dci_rule.h"
#include "net/dci_oracle.h"

namespace bifrost::net::testing {

struct OracleDraw {
  Rate long_rate = Rate::Gbps(100);
  Time one_way = Time::us(20);
  Time slot = Time::us(10);
  uint32_t k = 1;
  Rate drain_rate = Rate::Gbps(100);
  Time jitter = Time::zero();
  bool reverse = false;      // lossy data D -> U, so pauses wait behind frames
  uint32_t short_flows = 0;  // flows of 1 .. 3000 bytes among the backlog: short frames
};

// Rate 25 / 100 / 400 Gb/s, 20 .. 120 us one way, T of 2, 5 or 10 us, k of 1, 2 or 4, a drain
// link of the long link's rate or a half or a quarter of it, leak sources on or off.
inline OracleDraw draw_oracle_case(uint64_t seed) {
  RandomStream rng(seed, "dci-oracle");
  OracleDraw d;
  const Rate rates[] = {Rate::Gbps(25), Rate::Gbps(100), Rate::Gbps(400)};
  d.long_rate = rates[rng.uniform_int(0, 2)];
  d.one_way = Time::us(rng.uniform_int(20, 120));
  const int64_t slots_us[] = {2, 5, 10};
  d.slot = Time::us(slots_us[rng.uniform_int(0, 2)]);
  const uint32_t ks[] = {1, 2, 4};
  d.k = ks[rng.uniform_int(0, 2)];
  d.drain_rate = Rate::bps(d.long_rate.bits_per_second() >> rng.uniform_int(0, 2));
  d.jitter = rng.uniform_int(0, 1) ? Time::ns(5) : Time::zero();
  d.reverse = rng.uniform_int(0, 1) == 1;
  d.short_flows = static_cast<uint32_t>(rng.uniform_int(0, 400));
  return d;
}

struct OracleVariant {
  bool guard = true;
  bool literal = false;
  // A variant: the link the ingress is told (Delta and H follow it), and its rule.
  void (*tell_link)(DciLinkParams&) = nullptr;
  void (*break_rule)(DciRuleParams&) = nullptr;
};

enum class DrainScript {
  random,  // ready / stopped periods at random (scripted_drain.h)
  stop,    // ready for 300 us, then stopped: a chain of full pauses
};

// Runs `d` under `v` until `horizon`.
inline OracleVerdict run_oracle_case(const OracleDraw& d, const OracleVariant& v, uint64_t seed,
                                     Time horizon, DrainScript script = DrainScript::random) {
  DciConfig config;
  config.slot = d.slot;
  config.leak_every = d.k;
  config.guard_full_pauses = v.guard;
  config.literal = v.literal;
  DciLinkParams told{.rate = d.long_rate,
                     .propagation = d.one_way,
                     .ingress_latency = Time::ns(500),
                     .max_frame_bytes = kMaxFrame,
                     .jitter = d.jitter};
  if (v.tell_link) v.tell_link(told);
  const Bytes buffer = dci_min_buffer(told, d.slot, d.k);
  DciBench bench(d.drain_rate, buffer + Bytes::MiB(4), d.jitter, seed, d.one_way, d.long_rate);
  DciRuleParams rule = dci_rule_params(config, told);
  if (v.break_rule) v.break_rule(rule);
  auto owned =
      std::make_unique<DciIngress>(bench.net.kernel, config, told, bench.sw.egress(0), rule);
  const DciIngress& ingress = *owned;
  bench.sw.set_ingress_flow_control(0, std::move(owned));
  install_pfc_gate(bench.net.kernel, bench.sender.nic());

  bench.backlog_sender();
  RandomStream rng(seed, "dci-oracle-traffic");
  for (uint32_t i = 0; i < d.short_flows; ++i) {
    bench.flows.add(
        LineRateFlowSpec{.src = &bench.sender,
                         .dst = &bench.sink,
                         .bytes = static_cast<uint64_t>(rng.uniform_int(1, 3000)),
                         .start = Time::ns(rng.uniform_int(0, horizon.picoseconds() / 1000)),
                         .priority = kDciPrio});
  }
  if (d.reverse) bench.reverse_traffic();
  DciOracle oracle(bench, ingress, d.slot, d.k);
  if (script == DrainScript::random) {
    bench.random_drain(rng, horizon, [&](Time start, Time end, bool before) {
      oracle.on_ready(start, end, before);
    });
  } else {
    bench.net.kernel.run_until(Time::us(300));
    bench.drain->set_ready(false);
    bench.net.kernel.run_until(horizon);
  }
  return oracle.verdict();
}

}  // namespace bifrost::net::testing
