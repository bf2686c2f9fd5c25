#include "bifrost/sim/closed_loop.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::sim {

ClosedLoop::ClosedLoop(EventKernel& kernel, TransportFlows& transport, const ClosedLoopSpec& spec,
                       std::vector<workload::Flow>& flows)
    : kernel_(kernel), transport_(transport), spec_(spec), flows_(flows) {
  if (spec.loop.clients.empty() || spec.loop.threads == 0 || spec.loop.depth == 0 ||
      spec.loop.size.count() == 0) {
    throw Error("closed loop {}: needs clients, threads, depth and a size", spec.tag);
  }
  outstanding_.assign(spec.loop.clients.size() * spec.loop.threads, 0);
  result_.window_start = spec.loop.start + spec.loop.warmup;
  result_.window_end = end();
  const auto start_thread = [this](uint32_t t) {
    for (uint32_t i = 0; i < spec_.loop.depth; ++i) issue(t);
  };
  const bool spread = spec.loop.start_spread > Time::zero();
  kernel_.at(spec.loop.start, [this, spread, start_thread] {
    started_ = true;
    if (spread) return;
    for (uint32_t t = 0; t < outstanding_.size(); ++t) start_thread(t);
  });
  if (!spread) return;
  for (uint32_t t = 0; t < outstanding_.size(); ++t) {
    kernel_.at(thread_start(t), [t, start_thread] { start_thread(t); });
  }
}

Time ClosedLoop::thread_start(uint32_t thread) const {
  if (spec_.loop.start_spread <= Time::zero()) return spec_.loop.start;
  constexpr double kGolden = 0.6180339887498949;
  const double x = static_cast<double>(thread) * kGolden;
  const double fraction = x - static_cast<double>(static_cast<uint64_t>(x));
  return spec_.loop.start + Time::from_seconds(spec_.loop.start_spread.seconds() * fraction);
}

bool ClosedLoop::finished() const {
  return started_ && kernel_.now() >= end() && total_outstanding_ == 0;
}

void ClosedLoop::issue(uint32_t thread) {
  if (kernel_.now() >= end()) return;
  workload::Flow f;
  f.id = flows_.size();
  f.src = spec_.loop.clients[thread / spec_.loop.threads];
  f.dst = spec_.loop.server;
  f.size = spec_.loop.size;
  f.start = kernel_.now();
  f.priority = spec_.priority;
  f.tag = spec_.tag;
  flows_.push_back(f);
  ++outstanding_[thread];
  ++total_outstanding_;
  ++result_.issued;
  result_.max_outstanding = std::max(result_.max_outstanding, outstanding_[thread]);
  uint32_t lane = spec_.first_lane + thread % spec_.loop.threads;
  if (kernel_.now() < spec_.bifrost_from) lane |= TransportFlows::kPlainRcLane;
  transport_.add(f, lane, [this, thread](uint64_t id) { on_done(thread, id); });
}

void ClosedLoop::on_done(uint32_t thread, uint64_t flow_id) {
  --outstanding_[thread];
  --total_outstanding_;
  const RnicFlowRecord& r = transport_.records()[flow_id];
  if (r.failed) {
    ++result_.failed;
  } else {
    ++result_.completed;
    if (r.finish >= result_.window_start && r.finish <= result_.window_end) {
      ++result_.window_requests;
    }
  }
  issue(thread);
}

ClosedLoopResult ClosedLoop::result() const {
  ClosedLoopResult r = result_;
  const Time window = r.window_end - r.window_start;
  const double bytes = static_cast<double>(r.window_requests * spec_.loop.size.count());
  r.goodput_gbps = window > Time::zero() ? bytes * 8 / window.seconds() / 1e9 : 0;
  return r;
}

}  // namespace bifrost::sim
