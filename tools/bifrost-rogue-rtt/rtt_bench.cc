#include "rtt_bench.h"

#include <algorithm>
#include <memory>

#include "bifrost/core/bytes.h"
#include "bifrost/core/error.h"
#include "bifrost/transport/rogue/rogue_connection.h"
#include "bifrost/transport/rtt/rogue_batch.h"
#include "rogue_hosts.h"

namespace bifrost::rogue_rtt {
namespace {

namespace rogue = transport::rogue;

uint64_t region_bytes(const BenchConfig& c) {
  return c.verb_bytes * std::max<uint32_t>(c.verbs_outstanding, 1);
}

WireConfig wire_config(const BenchConfig& c) {
  WireConfig w;
  w.line_rate = c.line_rate;
  w.one_way_delay = c.one_way_delay;
  w.mtu = c.mtu;
  w.seed = c.seed;
  w.completes_at_transmit = c.completes_at_transmit;
  return w;
}

// Zero-byte signalled WRITEs on a bare RC QP, the next posted when the previous completes.
class Oracle {
 public:
  explicit Oracle(const BenchConfig& config)
      : config_(config), hosts_(wire_config(config), region_bytes(config)) {
    hosts_.connect_bare_rc(64);
    hosts_.cq[0]->set_handler([this] { on_completions(); });
  }

  RowResult run() {
    result_.row = Row::write0_oracle;
    sim::EventKernel& kernel = hosts_.pair.kernel();
    post();
    while (result_.samples.size() < config_.oracle_probes && kernel.step()) {
    }
    if (result_.samples.size() < config_.oracle_probes) throw Error("the oracle's WRITEs stalled");
    result_.elapsed = kernel.now();
    return std::move(result_);
  }

 private:
  void post() {
    rnic::SendWr wr;
    wr.wr_id = posted_++;
    wr.opcode = rnic::WrOpcode::rdma_write;
    wr.sge = rnic::Sge{kRegionBase, 0, hosts_.region[0]->lkey};
    wr.remote_addr = kRegionBase;
    wr.rkey = hosts_.region[1]->rkey;
    wr.signaled = true;
    posted_at_ = hosts_.pair.side(0).device->hw_time();  // the NIC clock just before posting
    hosts_.qp[0]->post_send(wr);
  }
  void on_completions() {
    rnic::WorkCompletion wc[4];
    const size_t n = hosts_.cq[0]->poll(4, wc);
    for (size_t k = 0; k < n; ++k) {
      if (wc[k].status != rnic::WcStatus::success) throw Error("the oracle's WRITE(0) failed");
      result_.samples.push_back(Sample{wc[k].hw_timestamp, wc[k].hw_timestamp - posted_at_, false});
    }
    if (n > 0 && posted_ < config_.oracle_probes) post();
  }

  BenchConfig config_;
  Hosts hosts_;
  RowResult result_;
  Time posted_at_;
  uint64_t posted_ = 0;
};

// RoGUE over RC (READs) or UC (WRITEs), side 0 keeping `verbs_outstanding` verbs posted until
// the duration ends.
class RogueRow {
 public:
  RogueRow(const BenchConfig& config, Row row)
      : config_(config),
        hosts_(wire_config(config), region_bytes(config)),
        read_(row == Row::rc_read) {
    rogue::RogueConfig rc;
    rc.qp_type = read_ ? rogue::QpType::rc : rogue::QpType::uc;
    rc.line_rate = config.line_rate;
    rc.mtu = config.mtu;
    rc.signal_cost = config.signal_cost;
    rc.clock_read_cost = config.clock_read_cost;
    rc.validate();
    for (int i = 0; i < 2; ++i) {
      conn_[i] = std::make_unique<rogue::RogueConnection>(*hosts_.pair.side(i).endpoint, rc);
    }
    conn_[0]->connect(conn_[1]->offer());
    conn_[1]->connect(conn_[0]->offer());
    result_.row = row;
    conn_[0]->set_trace([this](const rogue::TraceEvent& e) {
      if (e.kind == rogue::TraceEvent::Kind::sample && e.read == read_ && e.now < end_) {
        result_.samples.push_back(Sample{e.now, e.rtt, e.held_off});
      }
    });
    conn_[0]->set_completion_handler([this](const rogue::Completion& c) { on_completion(c); });
  }

  RowResult run() {
    sim::EventKernel& kernel = hosts_.pair.kernel();
    end_ = kernel.now() + config_.duration;
    for (uint32_t i = 0; i < std::max<uint32_t>(config_.verbs_outstanding, 1); ++i) post();
    // Past the end nothing new is posted and nothing more is counted; the NIC drains, so that
    // no completion it holds for its port is left to release when the pair is torn down (the
    // device would push it into the CQ of an endpoint already gone).
    kernel.run_until(end_ + Time::ms(1));
    result_.elapsed = config_.duration;
    return std::move(result_);
  }

 private:
  void post() {
    const uint64_t slot = next_++ % std::max<uint32_t>(config_.verbs_outstanding, 1);
    const uint64_t addr = kRegionBase + slot * config_.verb_bytes;
    rogue::Work w;
    w.wr_id = slot;
    w.op = read_ ? rogue::Op::read : rogue::Op::write;
    w.local = transport::MessageBuffer{hosts_.region[0], addr, config_.verb_bytes};
    w.remote = transport::RemoteAddress{addr, hosts_.region[1]->rkey};
    conn_[0]->post(w);
  }
  void on_completion(const rogue::Completion& c) {
    if (c.status != rogue::Status::success) throw Error("a RoGUE verb failed on an idle wire");
    if (hosts_.pair.kernel().now() >= end_) return;
    result_.bytes_completed += c.bytes;
    post();
  }

  BenchConfig config_;
  Hosts hosts_;
  bool read_;
  std::unique_ptr<rogue::RogueConnection> conn_[2];
  RowResult result_;
  Time end_;
  uint64_t next_ = 0;
};

}  // namespace

std::string to_string(Row row) {
  switch (row) {
    case Row::write0_oracle:
      return "rc_write0_oracle";
    case Row::rc_read:
      return "rc_read";
    case Row::uc_write:
      return "uc_write";
  }
  return "?";
}

double RowResult::goodput_gbps() const {
  return elapsed > Time::zero() ? static_cast<double>(bytes_completed) * 8 / elapsed.seconds() / 1e9
                                : 0.0;
}

RowResult run_row(const BenchConfig& config, Row row) {
  if (row == Row::write0_oracle) return Oracle(config).run();
  return RogueRow(config, row).run();
}

Time quantile(const std::vector<Sample>& samples, double q, bool with_held_off) {
  std::vector<Time> rtts;
  for (const Sample& s : samples) {
    if (with_held_off || !s.held_off) rtts.push_back(s.rtt);
  }
  if (rtts.empty()) return Time::zero();
  std::sort(rtts.begin(), rtts.end());
  const auto rank = static_cast<size_t>(q * static_cast<double>(rtts.size() - 1) + 0.5);
  return rtts[std::min(rank, rtts.size() - 1)];
}

Time accuracy_bound(const BenchConfig& config) {
  return Time::us(1) + serialization_time(Bytes(config.mtu), config.line_rate);
}

}  // namespace bifrost::rogue_rtt
