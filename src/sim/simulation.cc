#include "bifrost/sim/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "bifrost/core/error.h"
#include "bifrost/net/frame.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/metrics/writers.h"
#include "bifrost/sim/scenario/flows.h"
#include "bifrost/sim/topology/graph.h"
#include "bifrost/sim/workload/text_file.h"
#include "closed_loop_runs.h"
#include "flow_carriers.h"
#include "flow_sampler.h"
#include "probe_runs.h"

namespace bifrost::sim {
namespace {

using Clock = std::chrono::steady_clock;

// Frame bytes of packet `index` of a flow cut into `packets` packets, as the line-rate source
// cuts it: RC WRITE only, or first / middle ... / last.
// The frame of packet `index` of a flow sent as one RDMA WRITE, or (RNIC flows) one
// WRITE_WITH_IMM whose last packet carries 4 more bytes of ImmDt.
uint32_t frame_bytes_of(uint64_t index, uint64_t packets, uint32_t payload, bool immediate) {
  using wire::Opcode;
  Opcode op = Opcode::kRcWriteMiddle;
  if (packets == 1) {
    op = immediate ? Opcode::kRcWriteOnlyImm : Opcode::kRcWriteOnly;
  } else if (index == 0) {
    op = Opcode::kRcWriteFirst;
  } else if (index + 1 == packets) {
    op = immediate ? Opcode::kRcWriteLastImm : Opcode::kRcWriteLast;
  }
  return net::data_frame_bytes(op, payload);
}

class ProgressLine {
 public:
  ProgressLine(std::FILE* out, double every) : out_(out), every_(every), begin_(Clock::now()) {}

  void maybe_print(const EventKernel& kernel, std::size_t done, std::size_t total) {
    if (out_ == nullptr) return;
    const double wall = seconds_since(begin_);
    if (wall - last_ < every_) return;
    const double rate = static_cast<double>(kernel.executed() - last_events_) / (wall - last_);
    fmt::print(out_, "  sim {:>10.3f} ms | wall {:>7.1f} s | {:>6.2f} M events/s | flows {}/{}\n",
               kernel.now().seconds() * 1e3, wall, rate / 1e6, done, total);
    std::fflush(out_);
    last_ = wall;
    last_events_ = kernel.executed();
  }
  double elapsed() const { return seconds_since(begin_); }

 private:
  static double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }
  std::FILE* out_;
  double every_;
  Clock::time_point begin_;
  double last_ = 0;
  uint64_t last_events_ = 0;
};

// Samples link throughput and switch queue lengths at the scenario's intervals.
class Sampler {
 public:
  Sampler(Network& network, const scenario::MetricsConfig& config, metrics::RunMetrics& out)
      : config_(config), out_(out) {
    if (config.throughput_interval) {
      // Parallel links (two_dc's dci_links) join the same nodes: the second is "a->b#2".
      std::map<std::string, int> seen;
      const auto unique = [&seen](std::string name) {
        const int n = ++seen[name];
        return n == 1 ? name : fmt::format("{}#{}", name, n);
      };
      const auto& classes = config.throughput_links;  // empty: every link
      for (const auto& info : network.links()) {
        if (!classes.empty() &&
            std::find(classes.begin(), classes.end(), info.link_class) == classes.end()) {
          continue;
        }
        const auto& nodes = network.graph().nodes;
        directions_.push_back(
            {&info.link->a_to_b(), out.throughput.add_link(unique(fmt::format(
                                       "{}->{}", nodes[info.a].name, nodes[info.b].name)))});
        directions_.push_back(
            {&info.link->b_to_a(), out.throughput.add_link(unique(fmt::format(
                                       "{}->{}", nodes[info.b].name, nodes[info.a].name)))});
      }
      // The baseline is taken here, before any event runs: a baseline taken by the first
      // sample, after the events at time 0, would leave out the frames sent at time 0.
      for (const auto& d : directions_) {
        out.throughput.sample(d.series, Time::zero(), Bytes(d.channel->counters().data_bytes_sent));
      }
      next_throughput_ = *config.throughput_interval;
    }
    if (config.queue_interval) {
      for (const auto& sw : network.switches()) {
        for (uint32_t p = 0; p < sw->port_count(); ++p) {
          queues_.push_back(
              {&sw->egress(p), out.queues.add_queue(fmt::format("{}:p{}", sw->name(), p))});
        }
      }
      next_queue_ = Time::zero();
    }
  }

  // The next time a sample is due (Time::max() if none).
  Time next() const { return std::min(next_throughput_, next_queue_); }

  void sample(Time now) {
    if (now >= next_throughput_) {
      for (const auto& d : directions_)
        out_.throughput.sample(d.series, now, Bytes(d.channel->counters().data_bytes_sent));
      next_throughput_ = now + *config_.throughput_interval;
    }
    if (now >= next_queue_) {
      for (const auto& q : queues_) out_.queues.sample(q.series, now, q.port->total_queue_bytes());
      next_queue_ = now + *config_.queue_interval;
    }
  }

 private:
  struct Direction {
    const net::Channel* channel;
    uint32_t series;
  };
  struct Queue {
    const net::EgressPort* port;
    uint32_t series;
  };
  const scenario::MetricsConfig& config_;
  metrics::RunMetrics& out_;
  std::vector<Direction> directions_;
  std::vector<Queue> queues_;
  Time next_throughput_ = Time::max();
  Time next_queue_ = Time::max();
};

// Calls `visit` with the drop counters of every switch and link direction.
template <typename Visit>
void visit_drops(Network& network, Visit visit) {
  for (const auto& sw : network.switches()) visit(sw->counters().drops);
  for (const auto& point : network.swing_points()) visit(point.relay->counters().drops);
  for (const auto& info : network.links()) {
    for (const net::Channel* ch : {&info.link->a_to_b(), &info.link->b_to_a()}) {
      visit(ch->counters().drops);
    }
  }
}

uint64_t dropped_packets(Network& network) {
  uint64_t total = 0;
  visit_drops(network, [&total](const net::DropCounters& drops) {
    for (const uint64_t n : drops.packets) total += n;
  });
  return total;
}

void collect_counters(Network& network, RunSummary& summary) {
  visit_drops(network, [&summary](const net::DropCounters& drops) {
    for (std::size_t r = 0; r < net::kDropReasonCount; ++r) {
      if (drops.packets[r] == 0) continue;
      summary.metrics.drops.add(net::drop_reason_name(static_cast<net::DropReason>(r)),
                                drops.packets[r]);
      summary.drops += drops.packets[r];
    }
  });
  for (const auto& info : network.links()) {
    for (const net::Channel* ch : {&info.link->a_to_b(), &info.link->b_to_a()}) {
      summary.data_packets += ch->counters().data_frames_sent;
    }
  }
  for (const auto& point : network.pfc_points()) {
    const auto& c = point.gate->counters();
    for (int p = 0; p < net::kPriorities; ++p) {
      const uint64_t episodes = c.pause_episodes[p] + (point.gate->paused(p) ? 1 : 0);
      if (episodes == 0) continue;
      const Time longest =
          c.episode_ns[p].empty() ? Time::zero() : Time::from_seconds(c.episode_ns[p].max() * 1e-9);
      summary.metrics.pauses.add_total(fmt::format("{}/prio{}", point.name, p), episodes,
                                       point.gate->paused_time(p), longest,
                                       c.pause_frames_received[p] + c.resume_frames_received[p]);
      summary.pauses += episodes;
    }
  }
}

// [topology] <class>_loss: each direction of a link draws its losses from its own stream (the
// link's seed, streams "a_to_b" and "b_to_a": net::Link), so runs repeat with the seed.
// [topology] host_drop_every: on the host-to-switch direction of each host link.
void apply_link_loss(const scenario::Scenario& sc, Network& network) {
  const auto& graph = network.graph();
  for (const auto& info : network.links()) {
    const scenario::LinkSpec& spec = scenario::link_class_spec(sc.topology, info.link_class);
    if (spec.drop_every != 0) {
      net::Channel& from_host = graph.is_host(info.a) ? info.link->a_to_b() : info.link->b_to_a();
      from_host.drop_every_nth_data_frame(spec.drop_every);
    }
    if (spec.loss == 0) continue;
    info.link->a_to_b().set_loss_rate(spec.loss);
    info.link->b_to_a().set_loss_rate(spec.loss);
  }
}

}  // namespace

Time ideal_fct(Bytes size, uint32_t mtu, const std::vector<const Network::LinkInfo*>& path,
               Time switch_latency, bool immediate_last) {
  return ideal_fct(size, mtu, std::vector<std::vector<const Network::LinkInfo*>>{path},
                   switch_latency, immediate_last);
}

Time ideal_fct(Bytes size, uint32_t mtu,
               const std::vector<std::vector<const Network::LinkInfo*>>& paths, Time switch_latency,
               bool immediate_last) {
  if (paths.empty()) throw Error("ideal FCT: no path");
  const uint64_t packets = std::max<uint64_t>(1, (size.count() + mtu - 1) / mtu);
  // When the previous frame left each link; links the paths share (the hosts') are one slot.
  std::vector<const Network::LinkInfo*> links;
  std::vector<std::vector<size_t>> slots(paths.size());
  for (size_t p = 0; p < paths.size(); ++p) {
    for (const Network::LinkInfo* link : paths[p]) {
      const auto it = std::find(links.begin(), links.end(), link);
      slots[p].push_back(static_cast<size_t>(it - links.begin()));
      if (it == links.end()) links.push_back(link);
    }
  }
  std::vector<Time> leaves(links.size(), Time::zero());
  // Frame `bytes` sent along path `p` now: when it has crossed the last link.
  const auto arrival = [&](size_t p, uint32_t bytes, bool commit) {
    Time ready = Time::zero();  // when the frame may start on the next link
    for (const size_t slot : slots[p]) {
      const net::Channel& ch = links[slot]->link->a_to_b();
      const Time leaves_link = std::max(ready, leaves[slot]) + ch.wire_time(bytes);
      if (commit) leaves[slot] = leaves_link;
      ready = leaves_link + ch.propagation() + switch_latency;
    }
    return ready - switch_latency;
  };
  Time done = Time::zero();
  for (uint64_t k = 0; k < packets; ++k) {
    const auto payload = static_cast<uint32_t>(std::min<uint64_t>(mtu, size.count() - k * mtu));
    const uint32_t bytes = frame_bytes_of(k, packets, payload, immediate_last);
    // The ideal sender puts each frame on the path where it arrives first.
    size_t best = 0;
    Time best_arrival = Time::max();
    for (size_t p = 0; p < paths.size() && paths.size() > 1; ++p) {
      const Time t = arrival(p, bytes, false);
      if (t < best_arrival) {
        best_arrival = t;
        best = p;
      }
    }
    done = std::max(done, arrival(best, bytes, true));
  }
  return done;
}

namespace {

// Ideal FCTs by (source, destination, size): a closed loop repeats the same few many times.
// `paths`: how many paths one flow may use at once (Virtuoso's K; 1 for every other carrier).
class IdealFcts {
 public:
  IdealFcts(Network& network, uint32_t mtu, Time switch_latency, bool immediate_last,
            uint32_t paths)
      : network_(network),
        mtu_(mtu),
        latency_(switch_latency),
        immediate_(immediate_last),
        paths_(paths) {}

  Time operator()(const workload::Flow& f) {
    const auto key = std::make_tuple(f.src, f.dst, f.size.count());
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const Time t = ideal_fct(f.size, mtu_, network_.shortest_paths(f.src, f.dst, paths_), latency_,
                             immediate_);
    cache_.emplace(key, t);
    return t;
  }

 private:
  Network& network_;
  uint32_t mtu_;
  Time latency_;
  bool immediate_;
  uint32_t paths_;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, Time> cache_;
};

// [upgrade]: the closed loops switch transports by themselves (ClosedLoopSpec::bifrost_from);
// the network and the NICs turn lossless operation off at lossless_off.
void schedule_upgrade(const scenario::Scenario& sc, EventKernel& kernel, Network& network,
                      detail::FlowCarrier& carrier, std::FILE* progress) {
  if (!sc.upgrade) return;
  kernel.at(sc.upgrade->to_bifrost, [&kernel, progress] {
    if (progress) {
      fmt::print(progress, "upgrade at {:.3f} ms: new RPCs go by Bifröst\n",
                 kernel.now().seconds() * 1e3);
    }
  });
  if (!sc.upgrade->lossless_off) return;
  kernel.at(*sc.upgrade->lossless_off, [&kernel, &network, &carrier, progress] {
    network.disable_pfc();
    carrier.transport()->disable_nic_dcqcn();
    if (progress) {
      fmt::print(progress, "upgrade at {:.3f} ms: PFC and NIC DCQCN off\n",
                 kernel.now().seconds() * 1e3);
    }
  });
}

}  // namespace

RunSummary run_scenario(const scenario::Scenario& sc, const RunOptions& options) {
  ProgressLine progress(options.progress, options.progress_every_seconds);
  EventKernel kernel;
  NetworkConfig nc;
  nc.switches = sc.switches;
  nc.mtu = sc.simulation.mtu;
  nc.seed = sc.simulation.seed;
  nc.switch_latency = sc.switches.latency;
  nc.addressing = sc.addressing;
  // Closed loops append their requests to `flows` while the run goes.
  std::vector<workload::Flow> flows = scenario::build_flows(sc);
  // Flow control protects exactly the priorities the traffic uses (file rows carry their own).
  nc.lossless_priorities = scenario::used_priorities(sc, flows);
  Network network(kernel, topology::describe(sc.topology), nc);
  apply_link_loss(sc, network);

  RunSummary summary;
  summary.metrics.flows =
      metrics::FlowMetrics(metrics::SizeBuckets(sc.metrics.size_buckets), sc.metrics.percentiles);
  const auto mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
  const auto carrier = detail::make_flow_carrier(sc, kernel, network);
  for (const auto& f : flows) carrier->add(f);
  const auto loops = detail::start_closed_loops(sc, kernel, *carrier, flows);
  const auto probes = detail::start_probes(sc, kernel, *carrier);
  // Drops inside each closed loop's goodput window: counted at its start and at its end.
  std::vector<std::array<std::optional<uint64_t>, 2>> window_drops(loops.size());
  for (size_t i = 0; i < loops.size(); ++i) {
    const ClosedLoopResult r = loops[i]->result();
    kernel.at(r.window_start, [&, i] { window_drops[i][0] = dropped_packets(network); });
    kernel.at(r.window_end, [&, i] { window_drops[i][1] = dropped_packets(network); });
  }
  if (options.progress) {
    fmt::print(options.progress, "{}: {} hosts, {} switches, {} links, {} flows{} on {}\n",
               sc.source, network.host_count(), network.switches().size(), network.links().size(),
               flows.size(), loops.empty() ? "" : fmt::format(" and {} closed loops", loops.size()),
               carrier->description());
  }

  schedule_upgrade(sc, kernel, network, *carrier, options.progress);

  Sampler sampler(network, sc.metrics, summary.metrics);
  std::optional<detail::FlowSampler> flow_sampler;
  if (sc.metrics.flow_throughput_interval) {
    summary.metrics.flow_throughput.emplace(*sc.metrics.flow_throughput_interval);
    flow_sampler.emplace(*sc.metrics.flow_throughput_interval, flows, *carrier,
                         *summary.metrics.flow_throughput);
  }
  const auto next_sample = [&] {
    return std::min(sampler.next(), flow_sampler ? flow_sampler->next() : Time::max());
  };
  const Time end = sc.simulation.duration.value_or(Time::max());
  const bool until_flows_done = sc.simulation.stop == scenario::StopRule::flows_done;
  const auto all_done = [&] {
    const bool loops_done =
        std::all_of(loops.begin(), loops.end(), [](const auto& l) { return l->finished(); });
    const bool probes_done =
        std::all_of(probes.begin(), probes.end(), [](const auto& p) { return p->finished(); });
    return loops_done && probes_done && carrier->completed() == flows.size();
  };
  const Time slice = Time::us(10);
  for (;;) {
    if (until_flows_done && all_done()) break;
    if (kernel.pending() == 0 || kernel.now() >= end) break;
    const Time next = std::min({kernel.now() + slice, next_sample(), end});
    kernel.run_until(next);
    if (kernel.now() >= sampler.next()) sampler.sample(kernel.now());
    if (flow_sampler && kernel.now() >= flow_sampler->next()) flow_sampler->sample(kernel.now());
    progress.maybe_print(kernel, carrier->completed(), flows.size());
  }
  if (flow_sampler) flow_sampler->sample(kernel.now());  // the part after the last edge

  // A Virtuoso flow is split over its K paths: its ideal is K paths' (docs/scenarios.md).
  const uint32_t flow_paths =
      sc.transport.kind == scenario::TransportKind::virtuoso ? sc.transport.virtuoso.paths : 1;
  IdealFcts ideal(network, mtu, nc.switch_latency, carrier->immediate_last(), flow_paths);
  for (const auto& f : flows) {
    metrics::FlowRecord record;
    record.id = f.id;
    record.src = f.src;
    record.dst = f.dst;
    record.size = f.size;
    record.start = f.start;
    record.finish = carrier->finish(f.id);
    summary.packets += carrier->packets(f.id);
    record.ideal_fct = ideal(f);
    record.tag = f.tag;
    summary.metrics.flows.add(std::move(record));
  }
  carrier->add_counters(summary);
  for (const auto& p : probes) summary.metrics.probes.push_back(p->series());
  for (size_t i = 0; i < loops.size(); ++i) {
    const uint64_t now = dropped_packets(network);
    const uint64_t window = window_drops[i][1].value_or(now) - window_drops[i][0].value_or(now);
    summary.closed_loops.push_back(
        {loops[i]->spec().tag, loops[i]->spec(), loops[i]->result(), window});
  }
  collect_counters(network, summary);
  summary.flows = flows.size();
  summary.finished = carrier->completed();
  summary.simulated = kernel.now();
  summary.events = kernel.executed();
  summary.wall_seconds = progress.elapsed();
  if (!options.out_dir.empty()) {
    metrics::RunInfo info{sc.source, sc.simulation.seed, summary.simulated, summary.wall_seconds};
    metrics::write_outputs(summary.metrics, info, options.out_dir, sc.metrics.flow_records);
    if (!summary.closed_loops.empty()) {
      workload::write_text_file(options.out_dir / "closed_loop.csv",
                                detail::closed_loops_csv(summary.closed_loops));
    }
  }
  return summary;
}

}  // namespace bifrost::sim
