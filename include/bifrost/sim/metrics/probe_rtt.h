#pragma once
// The round trips a probe workload measured (RoGUE's Fig. 11): one zero-byte RC WRITE every
// interval, its RTT from posting to its completion, for probe_rtt.csv and summary.json.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

struct ProbeRtt {
  Time posted;
  Time rtt;  // completion minus posting
};

struct ProbeRttSeries {
  std::string workload;  // the probe workload's name
  std::string src;       // host names
  std::string dst;
  uint64_t posted = 0;
  uint64_t failed = 0;           // completed in error (the QP then stops probing)
  uint64_t skipped = 0;          // not posted: too many outstanding (sim::Probe::kMaxOutstanding)
  std::vector<ProbeRtt> probes;  // the completed ones, in posting order
};

// workload,src,dst,seq,posted_ps,rtt_ps: one row per completed probe.
std::string probe_rtt_csv(const std::vector<ProbeRttSeries>& series);

}  // namespace bifrost::sim::metrics
