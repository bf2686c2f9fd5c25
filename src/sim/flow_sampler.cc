#include "flow_sampler.h"

#include <algorithm>

namespace bifrost::sim::detail {

FlowSampler::FlowSampler(Time interval, const std::vector<workload::Flow>& flows,
                         FlowCarrier& carrier, metrics::FlowThroughputSeries& out)
    : interval_(interval), flows_(flows), carrier_(carrier), out_(out), next_(interval) {}

void FlowSampler::take_in_new_flows() {
  if (known_ == flows_.size()) return;
  for (; known_ < flows_.size(); ++known_) waiting_.push_back(known_);
  std::sort(waiting_.begin(), waiting_.end(), [this](uint64_t a, uint64_t b) {
    return flows_[a].start > flows_[b].start || (flows_[a].start == flows_[b].start && a > b);
  });
}

void FlowSampler::sample(Time now) {
  take_in_new_flows();
  while (!waiting_.empty() && flows_[waiting_.back()].start < now) {
    const uint64_t id = waiting_.back();
    waiting_.pop_back();
    running_.push_back({id, std::max(flows_[id].start, previous_), 0});
  }
  // A whole sample covers exactly the interval that ends now; a run that ends between edges
  // gives a last, shorter one.
  const bool full_interval = now - previous_ == interval_;
  for (std::size_t i = 0; i < running_.size();) {
    Running& r = running_[i];
    const std::optional<Time> finish = carrier_.finish(r.id);
    const bool done = finish && *finish < now;
    const Time end = done ? std::max(*finish, r.since) : now;
    const uint64_t bytes = carrier_.delivered_bytes(r.id);
    if (end > r.since) {
      metrics::FlowThroughputSeries::Sample s;
      s.flow = r.id;
      s.start = r.since;
      s.end = end;
      s.bytes = Bytes(bytes - std::min(bytes, r.bytes));
      s.whole = full_interval && r.since == previous_ && end == now;
      if (const auto qp = carrier_.sender_rate(r.id)) {
        if (qp->rate) s.dcqcn_gbps = qp->rate->gbps();
        s.dcqcn_alpha = qp->alpha;
      }
      out_.add(s);
    }
    if (done) {
      r = running_.back();
      running_.pop_back();
      continue;
    }
    r.since = now;
    r.bytes = bytes;
    ++i;
  }
  previous_ = now;
  next_ = now + interval_;
}

}  // namespace bifrost::sim::detail
