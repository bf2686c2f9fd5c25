#include "verb_bench.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/transport/rogue/rogue_connection.h"

namespace bifrost::rogue_rtt {
namespace {

namespace rogue = transport::rogue;

// What a scheme counts, so the loop can take the measured groups' share.
struct Counters {
  uint64_t signals = 0;
  uint64_t wqes = 0;
  uint64_t clock_reads = 0;
  uint64_t modelled_cpu_ns = 0;
};

// The closed loop both schemes run: groups posted, completions timed.
class Loop {
 public:
  explicit Loop(const VerbBenchConfig& config)
      : config_(config),
        hosts_(config.wire, config.verb_bytes * config.signal_every * config.groups) {}
  virtual ~Loop() = default;

  VerbResult run() {
    if (config_.signal_every == 0 || config_.groups == 0 || config_.measured == 0) {
      throw Error("verb bench: signal_every, groups and measured must be positive");
    }
    if (config_.warmup == 0) start_measuring();
    for (uint32_t g = 0; g < config_.groups; ++g) post_group(g);
    sim::EventKernel& kernel = hosts_.pair.kernel();
    const uint64_t total = uint64_t{config_.warmup} + config_.measured;
    while (completed_ < total && kernel.step()) {
    }
    if (completed_ < total) throw Error("verb bench: the verbs stalled");
    // Let the NIC drain what it holds for its port before the pair is torn down.
    kernel.run_until(kernel.now() + Time::ms(1));
    return finish();
  }

 protected:
  virtual void post_verb(uint64_t wr_id, uint64_t offset, bool signaled) = 0;
  virtual Counters counters() const = 0;

  // The signalled verb of the group in `group_slot` completed: the group is done and goes
  // again. The counters are taken between one group's completion and the next post, so the
  // measured span holds exactly the measured groups' posts (in steady state).
  void on_group_done(uint64_t group_slot) {
    const Time now = hosts_.pair.kernel().now();
    if (completed_ >= config_.warmup && completed_ < uint64_t{config_.warmup} + config_.measured) {
      times_.push_back(now - started_[group_slot]);
      end_ = now;
      at_end_ = counters();
    }
    ++completed_;
    if (completed_ == config_.warmup) start_measuring();
    post_group(group_slot);
  }
  void start_measuring() {
    start_ = hosts_.pair.kernel().now();
    at_start_ = counters();
  }

  const VerbBenchConfig config_;
  Hosts hosts_;

 private:
  void post_group(uint64_t slot) {
    if (started_.size() <= slot) started_.resize(slot + 1);
    started_[slot] = hosts_.pair.kernel().now();
    const uint64_t base = slot * config_.signal_every * config_.verb_bytes;
    for (uint32_t v = 0; v < config_.signal_every; ++v) {
      const bool last = v + 1 == config_.signal_every;
      post_verb(slot, base + v * config_.verb_bytes, last);
    }
  }

  VerbResult finish() {
    VerbResult r;
    r.groups = times_.size();
    std::vector<Time> sorted = times_;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (const Time t : sorted) sum += t.microseconds();
    r.mean_us = sum / static_cast<double>(sorted.size());
    const auto at = [&](double q) {
      return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()))]
          .microseconds();
    };
    r.p50_us = at(0.5);
    r.p99_us = at(0.99);
    r.bytes = r.groups * config_.signal_every * config_.verb_bytes;
    r.elapsed = end_ - start_;
    r.signals = at_end_.signals - at_start_.signals;
    r.wqes = at_end_.wqes - at_start_.wqes;
    r.clock_reads = at_end_.clock_reads - at_start_.clock_reads;
    r.modelled_cpu_ns = at_end_.modelled_cpu_ns - at_start_.modelled_cpu_ns;
    return r;
  }

  std::vector<Time> started_;  // by group slot
  std::vector<Time> times_;
  uint64_t completed_ = 0;
  Time start_, end_;
  Counters at_start_, at_end_;
};

rnic::SendWr verb_wr(const VerbBenchConfig& c, const Hosts& h, uint64_t wr_id, uint64_t offset,
                     bool signaled) {
  rnic::SendWr wr;
  wr.wr_id = wr_id;
  wr.opcode = c.read ? rnic::WrOpcode::rdma_read : rnic::WrOpcode::rdma_write;
  wr.sge = rnic::Sge{kRegionBase + offset, static_cast<uint32_t>(c.verb_bytes), h.region[0]->lkey};
  wr.remote_addr = kRegionBase + offset;
  wr.rkey = h.region[1]->rkey;
  wr.signaled = signaled;
  return wr;
}

// Plain RoCE: one RC QP each side, verbs straight to the NIC.
class RoceLoop final : public Loop {
 public:
  explicit RoceLoop(const VerbBenchConfig& config) : Loop(config) {
    hosts_.connect_bare_rc(1 << 16);
    hosts_.cq[0]->set_handler([this] {
      rnic::WorkCompletion wc[16];
      size_t n = 0;
      while ((n = hosts_.cq[0]->poll(16, wc)) > 0) {
        for (size_t k = 0; k < n; ++k) {
          if (wc[k].status != rnic::WcStatus::success) throw Error("a RoCE verb failed");
          on_group_done(wc[k].wr_id);
        }
      }
    });
  }

 private:
  void post_verb(uint64_t wr_id, uint64_t offset, bool signaled) override {
    hosts_.qp[0]->post_send(verb_wr(config_, hosts_, wr_id, offset, signaled));
    ++wqes_;
    signals_ += signaled ? 1 : 0;
  }
  Counters counters() const override {
    Counters c;
    c.signals = signals_;
    c.wqes = wqes_;
    return c;
  }

  uint64_t signals_ = 0;
  uint64_t wqes_ = 0;
};

// RoGUE over RC: the same verbs through a RogueConnection.
class RogueLoop final : public Loop {
 public:
  explicit RogueLoop(const VerbBenchConfig& config) : Loop(config) {
    rogue::RogueConfig rc;
    rc.qp_type = rogue::QpType::rc;
    rc.line_rate = config.wire.line_rate;
    rc.mtu = config.wire.mtu;
    rc.signal_cost = config.signal_cost;
    rc.clock_read_cost = config.clock_read_cost;
    rc.min_batches = config.min_batches;
    if (config.max_window_bytes != 0) rc.vegas.max_window_bytes = config.max_window_bytes;
    rc.validate();
    for (int i = 0; i < 2; ++i) {
      conn_[i] = std::make_unique<rogue::RogueConnection>(*hosts_.pair.side(i).endpoint, rc);
    }
    conn_[0]->connect(conn_[1]->offer());
    conn_[1]->connect(conn_[0]->offer());
    conn_[0]->set_completion_handler([this](const rogue::Completion& c) {
      if (c.status != rogue::Status::success) throw Error("a RoGUE verb failed on an idle wire");
      on_group_done(c.wr_id);
    });
  }

 private:
  void post_verb(uint64_t wr_id, uint64_t offset, bool signaled) override {
    const rnic::SendWr wr = verb_wr(config_, hosts_, wr_id, offset, signaled);
    rogue::Work w;
    w.wr_id = wr_id;
    w.op = config_.read ? rogue::Op::read : rogue::Op::write;
    w.local = transport::MessageBuffer{hosts_.region[0], wr.sge.addr, config_.verb_bytes};
    w.remote = transport::RemoteAddress{wr.remote_addr, wr.rkey};
    w.signaled = signaled;
    conn_[0]->post(w);
  }
  Counters counters() const override {
    const rogue::RogueStats& s = conn_[0]->stats();
    Counters c;
    c.signals = s.signals;
    c.wqes = s.segments_posted;
    c.clock_reads = s.clock_reads;
    c.modelled_cpu_ns = s.modelled_cpu_ns;
    return c;
  }

  std::unique_ptr<rogue::RogueConnection> conn_[2];
};

}  // namespace

std::string to_string(Scheme scheme) {
  return scheme == Scheme::roce ? "roce" : "rogue";
}

double VerbResult::gbps() const {
  return elapsed > Time::zero() ? static_cast<double>(bytes) * 8 / elapsed.seconds() / 1e9 : 0.0;
}

double VerbResult::per_gb(uint64_t count) const {
  return bytes > 0 ? static_cast<double>(count) * 1e9 / static_cast<double>(bytes) : 0.0;
}

VerbResult run_verbs(const VerbBenchConfig& config) {
  if (config.scheme == Scheme::roce) return RoceLoop(config).run();
  return RogueLoop(config).run();
}

}  // namespace bifrost::rogue_rtt
