#include "rtt_bench.h"

#include <algorithm>
#include <memory>

#include "bifrost/core/bytes.h"
#include "bifrost/core/error.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/nic_profile.h"
#include "bifrost/sim/transport_pair.h"
#include "bifrost/transport/rogue/rogue_connection.h"
#include "bifrost/transport/rtt/rogue_batch.h"

namespace bifrost::rogue_rtt {
namespace {

namespace rogue = transport::rogue;

constexpr uint64_t kRegionBase = 0x5000'0000'0000;

// Both hosts: the ConnectX-3 Pro profile's NIC on a wire of the configured rate and delay; a
// region on each side that the peer may WRITE and READ.
struct Hosts {
  explicit Hosts(const BenchConfig& config) : pair(pair_config(config)) {
    for (int i = 0; i < 2; ++i) {
      auto& side = pair.side(i);
      memory[i] = std::make_unique<rnic::TokenMemory>(kRegionBase, region_bytes(config));
      region[i] = &side.device->reg_mr(
          side.endpoint->pd(), kRegionBase, region_bytes(config),
          rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read,
          memory[i].get());
    }
    memory[1]->fill(kRegionBase, region_bytes(config), 7);  // what the READs fetch
  }

  static uint64_t region_bytes(const BenchConfig& c) {
    return c.verb_bytes * std::max<uint32_t>(c.verbs_outstanding, 1);
  }
  static sim::TransportPairConfig pair_config(const BenchConfig& c) {
    sim::TransportPairConfig pc;
    pc.wire.rate = c.line_rate;
    pc.wire.delay = c.one_way_delay;
    pc.wire.seed = c.seed;
    // A real Ethernet line: each frame also costs its FCS, preamble and gap, which RoGUE's
    // B_sig / rate subtracts at line rate (rtt/rogue_batch.h). Without them the wire is 24 B a
    // frame faster than the estimator believes and every RC sample drifts to zero.
    pc.wire.framing_bytes = static_cast<uint32_t>(transport::kLineBytesPerFrameBeyondMetered);
    rnic::connectx3pro_profile().apply(pc.device);
    pc.device.complete_sends_at_transmit = c.completes_at_transmit;
    pc.endpoint.seed = c.seed;
    pc.bifrost_connection = false;
    pc.app_bytes = 1 << 20;
    return pc;
  }

  sim::TransportPair pair;
  std::unique_ptr<rnic::TokenMemory> memory[2];
  const rnic::MemoryRegion* region[2] = {nullptr, nullptr};
};

// Zero-byte signalled WRITEs on a bare RC QP, the next posted when the previous completes.
class Oracle {
 public:
  explicit Oracle(const BenchConfig& config) : config_(config), hosts_(config) {
    for (int i = 0; i < 2; ++i) {
      auto& side = hosts_.pair.side(i);
      cq_[i] = &side.device->create_cq(64);
      qp_[i] = &side.device->create_qp(side.endpoint->pd(), rnic::QpType::rc, *cq_[i], *cq_[i]);
    }
    for (int i = 0; i < 2; ++i) {
      rnic::QpConnection c;
      c.dest_ip = hosts_.pair.side(1 - i).device->gids().front();
      c.dest_qp_num = qp_[1 - i]->qp_num();
      c.sq_psn = 100;
      c.rq_psn = 100;
      c.path_mtu = config.mtu;
      rnic::connect_qp(*qp_[i], c);
    }
    cq_[0]->set_handler([this] { on_completions(); });
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
    qp_[0]->post_send(wr);
  }
  void on_completions() {
    rnic::WorkCompletion wc[4];
    const size_t n = cq_[0]->poll(4, wc);
    for (size_t k = 0; k < n; ++k) {
      if (wc[k].status != rnic::WcStatus::success) throw Error("the oracle's WRITE(0) failed");
      result_.samples.push_back(Sample{wc[k].hw_timestamp, wc[k].hw_timestamp - posted_at_, false});
    }
    if (n > 0 && posted_ < config_.oracle_probes) post();
  }

  BenchConfig config_;
  Hosts hosts_;
  rnic::QueuePair* qp_[2] = {nullptr, nullptr};
  rnic::CompletionQueue* cq_[2] = {nullptr, nullptr};
  RowResult result_;
  Time posted_at_;
  uint64_t posted_ = 0;
};

// RoGUE over RC (READs) or UC (WRITEs), side 0 keeping `verbs_outstanding` verbs posted until
// the duration ends.
class RogueRow {
 public:
  RogueRow(const BenchConfig& config, Row row)
      : config_(config), hosts_(config), read_(row == Row::rc_read) {
    rogue::RogueConfig rc;
    rc.qp_type = read_ ? rogue::QpType::rc : rogue::QpType::uc;
    rc.line_rate = config.line_rate;
    rc.mtu = config.mtu;
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
