#pragma once
// RoGUE's congestion control as it ran: one row per RTT sample and per rate change of every
// connection ([metrics] cc_trace = true), for cc_trace.csv: the window's own view of the flow,
// e.g. the sending rate it estimates (cwnd / RTT) beside the throughput the links measured.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

struct CcTraceRow {
  Time at;
  std::string host;  // whose window
  std::string peer;
  uint32_t lane = 0;
  uint32_t priority = 0;
  bool read = false;    // the READ window (else WRITE/SEND)
  bool sample = false;  // an RTT sample (else a rate change)
  uint64_t cwnd_bytes = 0;
  Time rtt;       // sample: the RTT; zero for a rate change
  Time base_rtt;  // sample: the base RTT after it
  bool held_off = false;
  uint64_t rate_bps = 0;  // rate change: the new limit (0: unlimited)
};

// time_us,host,peer,lane,priority,window,event,cwnd_bytes,rtt_us,base_rtt_us,held_off,
// estimate_gbps,rate_gbps; estimate = cwnd / RTT for samples.
std::string cc_trace_csv(const std::vector<CcTraceRow>& rows);

}  // namespace bifrost::sim::metrics
