#pragma once
// RoGUE's RTT accuracy (Table 1 of the RoGUE paper) on two simulated hosts: one QP on an
// otherwise idle 10 Gb/s wire between two ConnectX-3 Pro soft RNICs (sim::TransportPair).
//   write0_oracle  zero-byte signalled RC WRITEs on a bare RC QP, one at a time: the RTT is
//                  the CQE's NIC timestamp minus the NIC clock read just before posting. No
//                  data, so no serialization to subtract: the paper's oracle.
//   rc_read        RoGUE over RC, the application keeps 64 KB READs outstanding at line rate:
//                  the READ window's per-batch samples (rogue_rc_estimator.h)
//   uc_write       RoGUE over UC, 64 KB WRITEs: the WRITE window's samples from the receiver
//                  library's echoes (rogue_uc_estimator.h)
// Every RoGUE sample the estimator computed is kept, with whether it was held off after a rate
// change (RoGUE computes it but does not give it to Vegas).
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/transport/rogue/rogue_config.h"

namespace bifrost::rogue_rtt {

enum class Row : uint8_t { write0_oracle, rc_read, uc_write };
std::string to_string(Row row);

struct BenchConfig {
  Rate line_rate = Rate::Gbps(10);     // the paper's ConnectX-3 Pro port
  Time one_way_delay = Time::ns(500);  // wire propagation each way
  uint32_t mtu = 2048;                 // perftest's on ConnectX-3 Pro
  uint64_t verb_bytes = 64 * 1024;     // the paper's 64 KB verbs
  uint32_t verbs_outstanding = 8;      // enough that RoGUE, not the application, is the limit
  Time duration = Time::ms(20);        // of the RoGUE rows
  uint32_t oracle_probes = 1000;
  uint64_t seed = 1;
  // DeviceConfig::complete_sends_at_transmit: a UC send completes when its last packet left
  // the NIC (hardware's meaning), not when it was handed to the NIC's two-packet port queue
  // (the simulator's default). UC's t_start is the previous batch's send completion.
  bool completes_at_transmit = false;
  // RoGUE's modelled host CPU (RogueConfig::signal_cost, clock_read_cost; off by default, as
  // there). The clock read before each batch puts t_enq that much before the batch goes.
  Time signal_cost = transport::rogue::RogueConfig{}.signal_cost;
  Time clock_read_cost = transport::rogue::RogueConfig{}.clock_read_cost;
};

struct Sample {
  Time at;
  Time rtt;
  bool held_off = false;
};

struct RowResult {
  Row row = Row::write0_oracle;
  std::vector<Sample> samples;
  uint64_t bytes_completed = 0;  // RoGUE rows: verb bytes completed
  Time elapsed;
  double goodput_gbps() const;
};

RowResult run_row(const BenchConfig& config, Row row);

// The q-quantile (0..1, nearest rank) of the RTTs of `samples` (held-off ones included only if
// asked); zero for none.
Time quantile(const std::vector<Sample>& samples, double q, bool with_held_off);
// Our accuracy check: an estimate is accurate if within 1 us plus one MTU's serialization at
// the line rate of the oracle's median.
Time accuracy_bound(const BenchConfig& config);

}  // namespace bifrost::rogue_rtt
