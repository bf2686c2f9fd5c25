#pragma once
// A closed loop of requests into one server over TransportFlows (the `closed_loop` workload):
// every client runs `threads` threads, each on its own lane (its own Bifröst connection to the
// server), and each thread keeps `depth` requests outstanding. At `start` every thread issues
// `depth` requests; whenever one of a thread's requests completes, the thread issues the next
// at once, until start + duration, after which it only lets the outstanding ones finish. A
// request is one flow of `size` bytes from the client to the server; it completes when the
// client's SendCompletion arrives (the server's software ACK is the response).
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/transport_flows.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim {

struct ClosedLoopSpec {
  // Clients, server, threads, depth, size, start, duration and warmup, as the scenario says.
  scenario::ClosedLoopWorkload loop;
  uint8_t priority = 0;
  std::string tag;
  uint32_t first_lane = 1;  // thread t of every client uses lane first_lane + t
  // The per-RPC runtime flag of a non-stop upgrade: requests issued before this time go on the
  // thread's plain RC twin lane (TransportFlows::kPlainRcLane), later ones on Bifröst.
  Time bifrost_from = Time::zero();
};

struct ClosedLoopResult {
  uint64_t issued = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t window_requests = 0;  // completed inside the goodput window
  Time window_start;
  Time window_end;
  double goodput_gbps = 0;       // request bytes completed in the window per second
  uint32_t max_outstanding = 0;  // the most any thread ever had outstanding
};

class ClosedLoop {
 public:
  // Requests become flows appended to `flows` (the run's flow list, ids = positions), so their
  // records line up with everything else the run carries.
  ClosedLoop(EventKernel& kernel, TransportFlows& transport, const ClosedLoopSpec& spec,
             std::vector<workload::Flow>& flows);

  // Nothing left to issue and nothing outstanding.
  bool finished() const;
  // Requests a thread has outstanding now; thread = client position * threads + thread index.
  uint32_t outstanding(uint32_t thread) const { return outstanding_[thread]; }
  uint32_t thread_count() const { return static_cast<uint32_t>(outstanding_.size()); }
  // When `thread` issues its first requests: start, or with a start_spread, start + spread x
  // frac(thread x 0.618...) (the golden-ratio sequence: every client's threads fall all over
  // the spread, deterministically, none two at the same instant).
  Time thread_start(uint32_t thread) const;
  const ClosedLoopSpec& spec() const { return spec_; }
  ClosedLoopResult result() const;

 private:
  void issue(uint32_t thread);
  void on_done(uint32_t thread, uint64_t flow_id);
  Time end() const { return spec_.loop.start + spec_.loop.duration; }

  EventKernel& kernel_;
  TransportFlows& transport_;
  ClosedLoopSpec spec_;
  std::vector<workload::Flow>& flows_;
  std::vector<uint32_t> outstanding_;
  uint64_t total_outstanding_ = 0;
  ClosedLoopResult result_;
  bool started_ = false;
};

}  // namespace bifrost::sim
