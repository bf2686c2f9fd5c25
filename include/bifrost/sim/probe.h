#pragma once
// A latency probe (the `probe` workload; RoGUE's Fig. 11, "a periodic WRITE(0) request/response
// on a QP from a separate server to the incast server"): one RC QP pair of its own between two
// hosts' soft RNICs, outside any transport or software congestion control. From `start` it
// posts a signaled zero-byte RDMA WRITE every `interval` until `stop`, and records each one's
// round trip from posting to its send completion: the request's way there (queueing included),
// the responder's ACK and its way back. Probes are posted on schedule even while earlier ones
// are outstanding (an RC QP completes them in order), up to kMaxOutstanding; beyond it a probe
// is skipped and counted.
#include <cstdint>
#include <deque>
#include <string>

#include "bifrost/rnic/device.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/metrics/probe_rtt.h"
#include "bifrost/sim/scenario/scenario.h"

namespace bifrost::sim {

struct ProbeSpec {
  scenario::ProbeWorkload probe;  // src, dst, interval, start, stop
  std::string name;               // the workload's
  uint8_t priority = 0;
  uint32_t mtu = 1024;
};

class Probe {
 public:
  static constexpr uint32_t kMaxOutstanding = 1024;

  // `src` and `dst` are the two hosts' NICs; they must outlive the probe.
  Probe(EventKernel& kernel, rnic::Device& src, rnic::Device& dst, const ProbeSpec& spec);

  const metrics::ProbeRttSeries& series() const { return series_; }
  // Past its stop with no probe outstanding (or stopped by a failure).
  bool finished() const;

 private:
  void post();
  void poll();

  EventKernel& kernel_;
  ProbeSpec spec_;
  rnic::CompletionQueue* cq_ = nullptr;
  rnic::QueuePair* qp_ = nullptr;
  std::deque<Time> outstanding_;  // posting times, oldest first
  bool poll_scheduled_ = false;
  bool broken_ = false;  // a probe failed: the QP is in error, nothing more is posted
  metrics::ProbeRttSeries series_;
};

}  // namespace bifrost::sim
