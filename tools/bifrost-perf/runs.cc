#include "runs.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/real/json_fields.h"
#include "bw_tally.h"
#include "latency_stats.h"
#include "message_runs.h"
#include "rogue_verbs.h"
#include "rpc_runs.h"
#include "runner.h"
#include "virtuoso_runs.h"

namespace bifrost::perf {
namespace {

using rnic::WcOpcode;
using rnic::WcStatus;
using rnic::WorkCompletion;
using rnic::WrOpcode;

constexpr uint64_t kQpShift = 40;
constexpr uint64_t kIndexMask = (uint64_t{1} << kQpShift) - 1;

uint64_t wr_id(size_t qp, uint64_t k) {
  return (uint64_t{qp} << kQpShift) | (k & kIndexMask);
}
size_t qp_of(uint64_t id) {
  return static_cast<size_t>(id >> kQpShift);
}
uint64_t index_of(uint64_t id) {
  return id & kIndexMask;
}

// A Runner that takes the completions of its lanes (the session's CQ for bare QPs, the
// handlers of RoGUE connections): failed work requests end the run, the others go to
// on_completion.
class VerbsRunner : public Runner {
 public:
  VerbsRunner(Session& s, uint32_t size) : Runner(s, size) {
    if (!o_.uses_rogue()) {
      s_.cq().set_handler([this] { drain(); });
      return;
    }
    for (size_t c = 0; c < s_.qp_count(); ++c) {
      s_.rogue(c).set_completion_handler(
          [this](const transport::rogue::Completion& done) { take(work_completion(done)); });
      s_.rogue(c).set_receive_handler(
          [this](const transport::rogue::Receive& r) { take(work_completion(r)); });
    }
  }
  ~VerbsRunner() override {
    if (!o_.uses_rogue()) {
      s_.cq().set_handler(nullptr);
      return;
    }
    for (size_t c = 0; c < s_.qp_count(); ++c) {
      s_.rogue(c).set_completion_handler({});
      s_.rogue(c).set_receive_handler({});
    }
  }

 protected:
  virtual void on_completion(const WorkCompletion& wc) = 0;

  void post(size_t qp, rnic::SendWr wr) {
    if (s_.ud()) wr.ud = s_.ud_destination(qp);
    try {
      if (o_.uses_rogue()) {
        s_.rogue(qp).post(rogue_work(wr, s_.mr()));
      } else {
        s_.qp(qp).post_send(wr);
      }
    } catch (const Error& e) {
      fail(fmt::format("posting on {}: {}", lane_name(qp), e.what()));
    }
  }
  void post_recv(size_t qp, uint64_t slot) {
    const uint64_t va = s_.slot_va(qp, slot);
    const uint32_t length = o_.max_size() + s_.recv_offset();
    if (o_.uses_rogue()) {
      s_.rogue(qp).post_recv(wr_id(qp, slot), transport::MessageBuffer{&s_.mr(), va, length});
      return;
    }
    s_.qp(qp).post_recv(rnic::RecvWr{wr_id(qp, slot), rnic::Sge{va, length, s_.lkey()}});
  }

 private:
  std::string lane_name(size_t qp) {
    return o_.uses_rogue() ? fmt::format("RoGUE connection {}", qp)
                           : fmt::format("QP {}", s_.qp(qp).qp_num());
  }
  void drain() {
    WorkCompletion wcs[64];
    size_t n = 0;
    while ((n = s_.cq().poll(64, wcs)) > 0) {
      for (size_t i = 0; i < n; ++i) take(wcs[i]);
    }
  }
  void take(const WorkCompletion& wc) {
    if (wc.status != WcStatus::success) {
      fail(
          fmt::format("{} work request {} failed: {} (the peer stopped answering or refused "
                      "the access)",
                      lane_name(qp_of(wc.wr_id)), index_of(wc.wr_id), rnic::to_string(wc.status)));
      return;
    }
    progressed();
    on_completion(wc);
  }
};

// Client of write_bw / send_bw / read_bw: keeps up to tx_depth messages in flight per QP.
class BwClient final : public VerbsRunner {
 public:
  BwClient(Session& s, uint32_t size)
      : VerbsRunner(s, size),
        tally_(o_, s.qp_count(), size, s.loop().now()),
        window_(std::min<uint64_t>(o_.tx_depth, s.slots())) {}
  SizeResult result() const { return tally_.result(start_, peak_bps_); }

 private:
  void post_more() override {
    for (size_t qp = 0; qp < tally_.lanes(); ++qp) {
      while (tally_.outstanding(qp) < window_ && tally_.posting_allowed(qp, s_.loop().now())) {
        post_one(qp);
      }
    }
  }
  void post_one(size_t qp) {
    const uint64_t k = tally_.on_posted(qp);
    rnic::SendWr wr;
    wr.wr_id = wr_id(qp, k);
    wr.sge = rnic::Sge{s_.slot_va(qp, k), size_, s_.lkey()};
    wr.remote_addr = s_.peer_slot_va(qp, k);
    wr.rkey = s_.peer().rkey;
    wr.imm = static_cast<uint32_t>(k);
    switch (o_.op()) {
      case Op::write:
        wr.opcode = o_.verify ? WrOpcode::rdma_write_with_imm : WrOpcode::rdma_write;
        break;
      case Op::send:
        wr.opcode = o_.verify ? WrOpcode::send_with_imm : WrOpcode::send;
        break;
      case Op::read:
        wr.opcode = WrOpcode::rdma_read;
        break;
    }
    if (o_.verify) {
      // Fresh content per message for WRITE/SEND; READ targets are cleared so a read that
      // writes nothing cannot pass on the previous content.
      auto slot = s_.slot_bytes(qp, k, size_);
      if (o_.op() == Op::read) {
        std::memset(slot.data(), 0, slot.size());
      } else {
        rnic::fill_pattern(message_seed(qp, k), 0, slot);
      }
    }
    post(qp, wr);
  }
  void on_completion(const WorkCompletion& wc) override {
    const size_t qp = qp_of(wc.wr_id);
    const uint64_t k = index_of(wc.wr_id);
    if (o_.verify && o_.op() == Op::read) {
      check(message_seed(qp, k % s_.slots()), s_.slot_bytes(qp, k, size_), "READ", k);
    }
    tally_.on_completed(qp, s_.loop().now());
    schedule_post();
  }
  bool done() const override { return tally_.done(s_.loop().now()); }
  uint64_t progress_bytes() const override { return tally_.total() * size_; }

  BwTally tally_;
  uint64_t window_;
};

// Server side of every test: keeps receives posted, checks arriving messages, echoes them
// back in latency tests. Ends when the control connection has a message.
class Responder final : public VerbsRunner {
 public:
  Responder(Session& s, uint32_t size, bool receives_posted) : VerbsRunner(s, size) {
    if (!receives_posted) {
      for (size_t qp = 0; qp < s.qp_count(); ++qp) {
        for (uint64_t slot = 0; slot < s.slots(); ++slot) post_recv(qp, slot);
      }
    }
  }
  PeerStats stats() const {
    PeerStats p;
    p.verified = verified_;
    p.corrupt = corrupt_;
    return p;
  }
  // After the client finished: its last messages may have been acknowledged before this
  // side's loop took their receive completions (RoGUE hands them on a turn later). Waits
  // until `expected` arrived, at most 2 s (over UC a lost message never does).
  void settle(uint64_t expected) {
    const Time deadline = s_.loop().now() + Time::from_seconds(std::min(o_.timeout, 2.0));
    s_.loop().run_until([this, expected] { return received_ >= expected; }, deadline);
  }

 private:
  void on_completion(const WorkCompletion& wc) override {
    if (wc.opcode != WcOpcode::recv && wc.opcode != WcOpcode::recv_rdma_with_imm) return;
    const size_t qp = qp_of(wc.wr_id);
    const uint64_t slot = index_of(wc.wr_id);
    // UD: a SEND of the previous size of -a may arrive after that round ended (nothing waits
    // for UD messages): its length gives it away; the receive is simply posted again.
    if (s_.ud() && wc.byte_len != s_.recv_offset() + size_) {
      ++stale_;
      pending_.push_back({qp, slot, 0, wc.opcode, true});
      schedule_post();
      return;
    }
    ++received_;
    if (o_.verify && wc.imm) {
      const uint64_t k = *wc.imm;
      // WRITE_WITH_IMM lands in the sender's slot k; SEND lands in the receive's slot.
      const auto bytes = wc.opcode == WcOpcode::recv_rdma_with_imm ? s_.slot_bytes(qp, k, size_)
                                                                   : s_.recv_bytes(qp, slot, size_);
      check(message_seed(qp, k), bytes, wc.opcode == WcOpcode::recv ? "SEND" : "WRITE", k);
    }
    pending_.push_back({qp, slot, wc.imm.value_or(0), wc.opcode, false});
    schedule_post();
  }
  void post_more() override {
    for (const Pending& p : pending_) {
      post_recv(p.qp, p.slot);
      if (!o_.is_latency() || p.stale) continue;
      // Echo: the same operation back, from where the message landed.
      const uint64_t from = p.opcode == WcOpcode::recv_rdma_with_imm ? s_.slot_va(p.qp, p.imm)
                                                                     : s_.recv_va(p.qp, p.slot);
      rnic::SendWr wr;
      wr.wr_id = wr_id(p.qp, p.imm);
      wr.sge = rnic::Sge{from, size_, s_.lkey()};
      wr.opcode = o_.op() == Op::write ? WrOpcode::rdma_write_with_imm
                                       : (o_.verify ? WrOpcode::send_with_imm : WrOpcode::send);
      wr.remote_addr = s_.peer_slot_va(p.qp, p.imm);
      wr.rkey = s_.peer().rkey;
      wr.imm = p.imm;
      post(p.qp, wr);
    }
    pending_.clear();
  }
  bool done() const override { return s_.channel().readable(); }
  uint64_t progress_bytes() const override { return received_ * size_; }

  struct Pending {
    size_t qp;
    uint64_t slot;
    uint32_t imm;
    WcOpcode opcode;
    bool stale;  // only to be posted again
  };
  std::vector<Pending> pending_;
  uint64_t received_ = 0;
  uint64_t stale_ = 0;
};

// Client of write_lat / send_lat: one message at a time on QP 0, timed until the echo lands,
// half the round trip reported (perftest's convention). read_lat: one READ at a time, its whole
// round trip reported (as ib_read_lat does: a READ has no echo to halve). write0_lat: one
// zero-byte signalled WRITE at a time, its whole round trip (RoGUE's RTT oracle).
class LatClient final : public VerbsRunner {
 public:
  LatClient(Session& s, uint32_t size, bool receives_posted) : VerbsRunner(s, size) {
    if (!receives_posted && !reads()) {
      for (uint64_t slot = 0; slot < s.slots(); ++slot) post_recv(0, slot);
    }
    samples_.reserve(o_.effective_iterations());
  }
  SizeResult result() {
    SizeResult r = latency_result(samples_, size_);
    r.seconds = (s_.loop().now() - start_).seconds();
    return r;
  }

 private:
  bool reads() const { return o_.op() == Op::read; }
  // The whole round trip of a one-sided verb, not half of an echo's.
  bool one_sided() const { return reads() || o_.is_write0(); }
  void post_more() override {
    for (const uint64_t slot : reposts_) post_recv(0, slot);
    reposts_.clear();
    if (in_flight_ || next_ >= o_.effective_iterations()) return;
    const uint64_t k = next_++;
    rnic::SendWr wr;
    wr.wr_id = wr_id(0, k);
    wr.sge = rnic::Sge{s_.slot_va(0, k), size_, s_.lkey()};
    wr.opcode = reads()                ? WrOpcode::rdma_read
                : o_.is_write0()       ? WrOpcode::rdma_write
                : o_.op() == Op::write ? WrOpcode::rdma_write_with_imm
                                       : (o_.verify ? WrOpcode::send_with_imm : WrOpcode::send);
    wr.remote_addr = s_.peer_slot_va(0, k);
    wr.rkey = s_.peer().rkey;
    wr.imm = static_cast<uint32_t>(k);
    if (o_.verify) {
      // A READ's target is cleared, so a READ that writes nothing cannot pass.
      const auto slot = s_.slot_bytes(0, k, size_);
      if (reads()) {
        std::memset(slot.data(), 0, slot.size());
      } else {
        rnic::fill_pattern(message_seed(0, k), 0, slot);
      }
    }
    in_flight_ = true;
    sent_at_ = s_.loop().now();
    post(0, wr);
  }
  void on_completion(const WorkCompletion& wc) override {
    const bool echo = wc.opcode == WcOpcode::recv || wc.opcode == WcOpcode::recv_rdma_with_imm;
    const bool mine = reads()          ? wc.opcode == WcOpcode::rdma_read
                      : o_.is_write0() ? wc.opcode == WcOpcode::rdma_write
                                       : echo;
    if (!mine) return;
    const Time rtt = s_.loop().now() - sent_at_;
    samples_.push_back(one_sided() ? rtt.microseconds() : rtt.microseconds() / 2);
    const uint64_t k = next_ - 1;
    if (reads()) {
      if (o_.verify) check(message_seed(0, k % s_.slots()), s_.slot_bytes(0, k, size_), "READ", k);
    } else if (!o_.is_write0()) {  // a WRITE(0) has no bytes to check and no echo
      const uint64_t slot = index_of(wc.wr_id);
      if (o_.verify) {
        const auto bytes = wc.opcode == WcOpcode::recv_rdma_with_imm
                               ? s_.slot_bytes(0, k, size_)
                               : s_.recv_bytes(0, slot, size_);
        check(message_seed(0, k), bytes, "echo", k);
      }
      reposts_.push_back(slot);
    }
    in_flight_ = false;
    schedule_post();
  }
  bool done() const override { return samples_.size() >= o_.effective_iterations(); }
  uint64_t progress_bytes() const override { return samples_.size() * size_; }

  std::vector<double> samples_;
  std::vector<uint64_t> reposts_;
  uint64_t next_ = 0;
  bool in_flight_ = false;
  Time sent_at_;
};

PeerStats stats_from_json(const nlohmann::json& j) {
  PeerStats p;
  p.verified = real::integer_field<uint64_t>(j, "verified");
  p.corrupt = real::integer_field<uint64_t>(j, "corrupt");
  p.counters = j.at("counters");
  p.duplicates = j.value("duplicates", uint64_t{0});
  p.delivered = j.value("delivered", uint64_t{0});
  return p;
}

nlohmann::json to_json(const PeerStats& p, const nlohmann::json& counters) {
  return {{"verified", p.verified},
          {"corrupt", p.corrupt},
          {"duplicates", p.duplicates},
          {"delivered", p.delivered},
          {"counters", counters}};
}

Time control_timeout(const Options& o) {
  return Time::from_seconds(o.timeout);
}

// Fills the server's slots with known content for read_bw --verify.
void fill_read_sources(Session& s) {
  for (size_t qp = 0; qp < s.qp_count(); ++qp) {
    for (uint64_t slot = 0; slot < s.slots(); ++slot) {
      rnic::fill_pattern(message_seed(qp, slot), 0, s.slot_bytes(qp, slot, s.options().max_size()));
    }
  }
}

}  // namespace

namespace {
// This process's CPU seconds when the current size's run began (mark_size_start): the counters'
// cpu_seconds_run is the CPU of the run alone, without start-up, memory registration and the
// bootstrap (RoGUE's Figs. 2, 3, 6 per GB, experiments/rogue-signaling-cost).
double size_cpu_start = 0;
void mark_size_start() {
  size_cpu_start = process_cpu_seconds();
}
}  // namespace

nlohmann::json local_counters(Session& s) {
  const rnic::DataPathCounters& d = s.device().data_path_counters();
  const real::UdpPortCounters& p = s.port().counters();
  nlohmann::json j = {{"tx_packets", d.tx_packets},
                      {"retransmissions", d.tx_retransmitted},
                      {"timeouts", d.timeouts},
                      {"naks_sent", d.naks_sent},
                      {"rx_packets", d.rx_packets},
                      {"rx_dropped_sequence", d.rx_dropped_sequence},
                      {"rx_duplicates", d.rx_duplicates},
                      {"rx_no_qp", d.rx_no_qp},
                      {"access_naks_sent", d.access_naks_sent},
                      {"udp_tx_datagrams", p.tx_datagrams},
                      {"udp_tx_calls", p.tx_calls},
                      {"udp_tx_gso_sends", p.tx_gso_sends},
                      {"udp_rx_calls", p.rx_calls},
                      {"udp_rx_gro_batches", p.rx_gro_batches},
                      {"udp_tx_errors", p.tx_errors},
                      {"udp_rx_datagrams", p.rx_datagrams},
                      {"udp_rx_kernel_drops", p.rx_kernel_drops},
                      {"udp_rx_truncated", p.rx_truncated},
                      {"udp_rx_malformed", p.rx_malformed},
                      {"udp_rx_bad_icrc", p.rx_bad_icrc},
                      {"udp_rx_queueing_mean_us", s.port().mean_rx_queueing().microseconds()},
                      {"cpu_seconds", process_cpu_seconds()},
                      {"cpu_seconds_run", process_cpu_seconds() - size_cpu_start}};
  if (s.options().uses_rogue()) {
    j["rogue"] = rogue_counters(s);
  } else if (s.options().uses_virtuoso()) {
    j["virtuoso"] = virtuoso_counters(s);
  } else if (s.has_endpoint()) {
    j["transport"] = transport_counters(s);
  }
  return j;
}

SizeResult run_client_size(Session& s, uint32_t size, RunResults& results) {
  const Options& o = s.options();
  s.channel().send({{"phase", "start"}, {"size", size}});
  const nlohmann::json ready = s.channel().receive(control_timeout(o));
  if (ready.value("phase", "") != "ready") throw Error("the server did not get ready");
  ClientOutcome out;
  mark_size_start();
  if (o.is_rpc()) {
    out = run_rpc_client(s, size);
  } else if (o.uses_virtuoso()) {
    out = run_virtuoso_client(s, size);
  } else if (o.uses_bifrost()) {
    out = run_message_client(s, size);
  } else if (o.is_latency()) {
    static bool receives_posted = false;  // receives stay posted across sizes
    LatClient client(s, size, receives_posted);
    receives_posted = true;
    client.run(true);
    out = ClientOutcome{client.result(), client.verified(), client.corrupt()};
  } else {
    BwClient client(s, size);
    client.run(true);
    out = ClientOutcome{client.result(), client.verified(), client.corrupt()};
  }
  const SizeResult& r = out.result;
  results.verified += out.verified;
  results.corrupt += out.corrupt;
  s.channel().send({{"phase", "done"}, {"result", to_json(r)}, {"counters", local_counters(s)}});
  const nlohmann::json reply = s.channel().receive(control_timeout(o));
  const PeerStats peer = stats_from_json(reply.at("stats"));
  results.verified += peer.verified;
  results.corrupt += peer.corrupt;
  results.duplicates += peer.duplicates;
  if (o.verify && !o.is_latency() && o.op() != Op::read && peer.verified < r.iterations) {
    results.missing += r.iterations - peer.verified;
  }
  results.peer_counters = peer.counters;
  return r;
}

namespace {

// One size of a Bifröst server (messages or RPCs): serve until the client is done, settle,
// answer with what this side saw.
template <typename Server>
void serve_size(Session& s, uint32_t size, RunResults& results) {
  Server server(s, size);
  mark_size_start();
  s.channel().send({{"phase", "ready"}});
  server.run(false);
  const nlohmann::json done = s.channel().receive(control_timeout(s.options()));
  if (done.value("phase", "") != "done") {
    throw Error("unexpected control message '{}'", done.dump());
  }
  const SizeResult client_result = size_result_from_json(done.at("result"));
  if constexpr (requires { server.settle(uint64_t{}); }) {
    server.settle(client_result.iterations);  // Virtuoso: MP SENDs the client completed
  } else {
    server.settle();
  }
  const PeerStats stats = server.stats();
  results.verified += stats.verified;
  results.corrupt += stats.corrupt;
  results.duplicates += stats.duplicates;
  results.sizes.push_back(client_result);
  results.peer_counters = done.at("counters");
  s.channel().send({{"phase", "stats"}, {"stats", to_json(stats, local_counters(s))}});
}

}  // namespace

RunResults run_server(Session& s) {
  const Options& o = s.options();
  RunResults results;
  if (o.verify && o.op() == Op::read) fill_read_sources(s);
  // (Virtuoso's MP READs read slot k % slots as the verbs' do: the same sources.)
  // Receives are needed for SEND, for WRITE_WITH_IMM (--verify) and for every latency echo
  // (read_lat has none: the server stays passive).
  const bool needs_receives = o.op() == Op::send || (o.is_latency() && o.op() != Op::read) ||
                              (o.verify && o.op() == Op::write);
  bool receives_posted = !needs_receives;
  while (true) {
    const nlohmann::json m = s.channel().receive(control_timeout(o) * 6);
    const std::string phase = m.value("phase", "");
    if (phase == "bye") break;
    if (phase != "start") throw Error("unexpected control message '{}'", m.dump());
    const auto size = real::integer_field<uint32_t>(m, "size");
    if (o.is_rpc()) {
      serve_size<RpcServer>(s, size, results);
      continue;
    }
    if (o.uses_bifrost()) {
      serve_size<MessageServer>(s, size, results);
      continue;
    }
    if (o.uses_virtuoso()) {
      serve_size<VirtuosoServer>(s, size, results);
      continue;
    }
    Responder responder(s, size, receives_posted);
    receives_posted = true;
    mark_size_start();
    s.channel().send({{"phase", "ready"}});
    responder.run(false);
    const nlohmann::json done = s.channel().receive(control_timeout(o));
    if (done.value("phase", "") != "done")
      throw Error("unexpected control message '{}'", done.dump());
    const SizeResult client_result = size_result_from_json(done.at("result"));
    // Every SEND, and every WRITE_WITH_IMM that --verify posts, consumes one receive here.
    const bool one_receive_each = o.op() == Op::send || (o.verify && o.op() == Op::write);
    if (one_receive_each && !o.is_latency()) responder.settle(client_result.iterations);
    const PeerStats stats = responder.stats();
    results.verified += stats.verified;
    results.corrupt += stats.corrupt;
    results.sizes.push_back(client_result);
    results.peer_counters = done.at("counters");
    s.channel().send({{"phase", "stats"}, {"stats", to_json(stats, local_counters(s))}});
  }
  results.local_counters = local_counters(s);
  return results;
}

}  // namespace bifrost::perf
