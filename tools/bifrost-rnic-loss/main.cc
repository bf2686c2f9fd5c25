// bifrost-rnic-loss: goodput of one RC QP under random loss, per loss-recovery engine.
//
//   bifrost-rnic-loss --engine all --loss 0.001,0.01,0.05 --json out.json
//
// Two soft RNICs (sim::NicPair) are joined by a LossyWire that drops each packet with the given
// probability in BOTH directions (data one way, ACK/NAK/SACK the other). One connected RC QP
// streams fixed-size RDMA WRITEs (or SENDs) back to back: the application keeps `outstanding`
// work requests posted, polls the send CQ every microsecond of simulated time and reposts one
// work request per completion. Goodput is the payload of the messages completed after the
// warm-up divided by the simulated time, and is reported as a fraction of the line rate; a
// sample of completed messages is checked byte for byte (same_content) at the receiver.
//
// The wire's one-way delay is chosen so that the base RTT (an MTU-sized data frame serialized,
// carried, and its ACK serialized and carried back) equals --rtt-us.
//
// --burst-len L > 1 replaces the independent loss by a Gilbert model per direction (bursts of L
// line-rate packet slots on average, see BurstLoss; the long-run loss rate stays --loss).
// --qp-rate-gbps paces the QP below the line rate, as its fair share among N QPs on the link would.
// With --engine fasr the receiver's path statistics (recovery episodes and out-of-order packets on
// FaSR's fast and slow paths) are reported.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"
#include "bifrost/wire/frame.h"

namespace {

using namespace bifrost;
using rnic::recovery::EngineKind;

struct Options {
  std::vector<std::string> engines{"all"};
  std::vector<double> losses{0.01};
  uint32_t message_bytes = 8192;
  double rate_gbps = 100;
  double rtt_us = 6;
  uint32_t mtu = 1024;
  double duration_us = 20000;
  double warmup_us = 100;
  uint32_t outstanding = 64;
  std::string opcode = "write";
  double burst_len = 1;     // mean loss burst, line-rate packet slots; 1 = independent loss
  double qp_rate_gbps = 0;  // per-QP pacing; 0 = line rate
  // GBN. The QP timeout attribute is set on every QP, but only GBN uses it (IRN and SRNIC have
  // their own RTO_low/RTO_high). 8 is NicPairConfig's default: 4.096 us * 2^8 = 1.05 ms.
  int gbn_timeout = 8;
  double gbn_min_rto_us = 0;
  int retry_cnt = 7;
  // IRN / SRNIC (RecoveryConfig defaults).
  uint32_t bdp_packets = 128;
  double rto_low_us = 100;
  double rto_high_us = 320;
  // Receive pipeline (off unless --pipeline).
  bool pipeline = false;
  double pipeline_gbps = 110;
  double pipeline_per_packet_ns = 0;
  uint64_t pipeline_buffer_kib = 256;
  double srnic_stall_ns = 1300;
  uint32_t verify_every = 16;
  uint64_t seed = 1;
  std::string json_file;
  std::string csv_file;
  bool quiet = false;
};

struct Result {
  EngineKind engine = EngineKind::gbn;
  double loss = 0;
  double goodput_gbps = 0;
  double goodput_fraction = 0;  // of the line rate
  double ceiling_fraction = 0;  // loss-free payload / wire bytes of this engine's packets
  // Data packets the QP sends in one base RTT at its rate (the line rate, or --qp-rate-gbps),
  // counting the average wire size of this engine's packets.
  double packets_per_rtt = 0;
  uint64_t messages = 0;  // completed after the warm-up
  uint64_t bytes = 0;
  uint64_t verified = 0;
  uint64_t verify_failures = 0;
  std::string qp_error;  // first non-success completion status, if any
  double qp_error_at_us = 0;
  // The longest time without any completion (from the start, or the last completion, to the
  // next one or the end): a QP that stopped making progress shows here.
  double longest_gap_us = 0;
  double last_completion_us = 0;
  uint64_t data_sent = 0;  // packets on the wire, requester -> responder (incl. retransmissions)
  uint64_t data_lost = 0;
  uint64_t acks_sent = 0;  // responder -> requester
  uint64_t acks_lost = 0;
  uint64_t retransmitted = 0;
  uint64_t timeouts = 0;
  uint64_t naks = 0;
  uint64_t sacks = 0;
  uint64_t rx_dropped_sequence = 0;
  uint64_t rx_out_of_order = 0;
  uint64_t pipeline_drops = 0;
  uint64_t pipeline_stalls = 0;
  // FaSR's receiver (the pool's path statistics; zero for the other engines).
  uint64_t fast_recoveries = 0;
  uint64_t slow_recoveries = 0;
  uint64_t fast_path_packets = 0;
  uint64_t slow_path_packets = 0;
  uint64_t pool_fallbacks = 0;
  uint32_t pool_peak_blocks = 0;
  uint64_t events = 0;
  double simulated_us = 0;
  double wall_seconds = 0;
};

constexpr uint64_t kBufferBytes = uint64_t{1} << 34;  // each side; TokenMemory is sparse
constexpr uint64_t kSrcBase = sim::NicPair::kBufferBase;
constexpr uint64_t kDstBase = sim::NicPair::kBufferBase + kBufferBytes / 2;
constexpr Time kPollInterval = Time::us(1);

Time microseconds(double us) {
  return Time::ps(std::llround(us * 1e6));
}

Rate gigabits(double gbps) {
  return Rate::bps(std::llround(gbps * 1e9));
}

std::vector<EngineKind> parse_engines(const std::vector<std::string>& names) {
  std::vector<EngineKind> out;
  for (const std::string& n : names) {
    if (n == "all") {
      for (EngineKind k : {EngineKind::gbn, EngineKind::irn, EngineKind::srnic}) out.push_back(k);
    } else {
      out.push_back(rnic::recovery::parse_engine_kind(n));
    }
  }
  return out;
}

rnic::WrOpcode wr_opcode(const Options& o) {
  return o.opcode == "send" ? rnic::WrOpcode::send : rnic::WrOpcode::rdma_write;
}

// Wire bytes of one message's request packets, and the payload/wire ratio: the goodput a
// loss-free link can reach. Selective engines add the SR extension header to every request.
double ceiling_fraction(const Options& o, bool selective) {
  rnic::SendWqe wqe;
  wqe.opcode = wr_opcode(o);
  wqe.length = o.message_bytes;
  uint64_t wire_bytes = 0;
  rnic::segment(rnic::QpType::rc, wqe, o.mtu, 0, 2,
                [&](wire::RoceHeaders h, uint64_t /*offset*/, uint32_t length) {
                  h.sr.present = selective;
                  wire_bytes += wire::ethernet_frame_size(h, length);
                });
  return static_cast<double>(o.message_bytes) / static_cast<double>(wire_bytes);
}

// Serialization of one MTU data frame at the line rate.
Time slot_time(const Options& o) {
  const auto data = wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, o.mtu);
  return serialization_time(Bytes(data), gigabits(o.rate_gbps));
}

// One-way delay such that an MTU data frame plus its ACK make one base RTT.
Time one_way_delay(const Options& o) {
  const Rate rate = gigabits(o.rate_gbps);
  const auto data = wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, o.mtu);
  const auto ack = wire::ethernet_frame_size(wire::Opcode::kRcAcknowledge, 0);
  const Time rtt = microseconds(o.rtt_us);
  const Time serial = serialization_time(Bytes(data), rate) + serialization_time(Bytes(ack), rate);
  if (rtt <= serial) {
    throw Error("--rtt-us {} is shorter than serializing one {} B frame and its ACK at {} Gb/s",
                o.rtt_us, data, o.rate_gbps);
  }
  return (rtt - serial) / 2;
}

// Gilbert's two-state loss model, one per direction, stepped once per line-rate slot (the
// serialization of one MTU data frame): in the bad state every packet is lost, the state stays
// bad with probability 1 - r per slot (r = 1/L: bursts of L slots on average) and turns bad
// with probability q = p r / (1 - p) from the good state, so the long-run loss rate is p. The
// chain steps through idle slots too, so a burst is a stretch of time (a congested queue), not a
// run of this QP's packets: a paced or stalled sender does not carry a burst across its gaps.
class BurstLoss {
 public:
  BurstLoss(const sim::EventKernel& kernel, Time slot, double loss, double burst_len, uint64_t seed,
            int side)
      : kernel_(kernel),
        slot_ps_(static_cast<double>(slot.picoseconds())),
        loss_(loss),
        lambda_(1 - 1 / burst_len - loss / (burst_len * (1 - loss))),
        random_(seed, side == 0 ? "burst-loss-data" : "burst-loss-ack") {}
  bool drop() {
    const Time now = kernel_.now();
    const double slots =
        std::max(1.0, std::round(static_cast<double>((now - last_).picoseconds()) / slot_ps_));
    last_ = now;
    // n steps of the chain: P(bad) = p + (1{bad} - p) lambda^n.
    const double decay = std::pow(lambda_, slots);
    bad_ = random_.bernoulli(loss_ + ((bad_ ? 1 : 0) - loss_) * decay);
    return bad_;
  }

 private:
  const sim::EventKernel& kernel_;
  double slot_ps_;
  double loss_;
  double lambda_;  // 1 - q - r: how much of the state survives one step
  RandomStream random_;
  Time last_ = Time::zero();
  bool bad_ = false;
};

class Runner {
 public:
  Runner(const Options& o, EngineKind engine, double loss)
      : o_(o), engine_(engine), loss_(loss), pair_(config()) {
    slots_ = (kBufferBytes / 2) / o.message_bytes;
    pair_.a().memory->fill(kSrcBase, slots_ * o.message_bytes, 1);
    if (o.burst_len > 1 && loss > 0) {
      for (int side = 0; side < 2; ++side) {
        BurstLoss* b =
            &bursts_.emplace_back(pair_.kernel(), slot_time(o), loss, o.burst_len, o.seed, side);
        pair_.wire().set_drop_filter(side, [b](const world::Packet&) { return b->drop(); });
      }
    }
    if (o.qp_rate_gbps > 0) {
      pair_.a().device->set_rate_limit(*pair_.a().qp, gigabits(o.qp_rate_gbps));
    }
  }

  Result run(const std::function<void(double)>& progress) {
    const auto wall_start = std::chrono::steady_clock::now();
    auto last_report = wall_start;
    const Time end = microseconds(o_.duration_us);
    const Time warmup = microseconds(o_.warmup_us);
    for (uint32_t i = 0; i < o_.outstanding; ++i) post_next();
    // The application: polls every microsecond, reposts per completion.
    std::function<void()> poll = [&] {
      const Time now = pair_.kernel().now();
      drain(now >= warmup);
      if (!result_.qp_error.empty()) return;
      const auto wall = std::chrono::steady_clock::now();
      if (progress && wall - last_report > std::chrono::seconds(2)) {
        last_report = wall;
        progress(now.microseconds());
      }
      if (now + kPollInterval <= end) pair_.kernel().at(now + kPollInterval, [&poll] { poll(); });
    };
    pair_.kernel().at(kPollInterval, [&poll] { poll(); });
    pair_.kernel().run_until(end);

    result_.engine = engine_;
    result_.loss = loss_;
    result_.longest_gap_us =
        std::max(result_.longest_gap_us, (end - last_completion_).microseconds());
    result_.last_completion_us = last_completion_.microseconds();
    const Time measured = end - warmup;
    result_.goodput_gbps = static_cast<double>(result_.bytes) * 8 / measured.seconds() / 1e9;
    result_.goodput_fraction = result_.goodput_gbps / o_.rate_gbps;
    result_.ceiling_fraction =
        ceiling_fraction(o_, pair_.a().device->recovery_engine().selective());
    const double packets = std::ceil(static_cast<double>(o_.message_bytes) / o_.mtu);
    const double frame_bits = 8.0 * o_.message_bytes / result_.ceiling_fraction / packets;
    const double qp_gbps = o_.qp_rate_gbps > 0 ? o_.qp_rate_gbps : o_.rate_gbps;
    result_.packets_per_rtt = qp_gbps * 1e3 * o_.rtt_us / frame_bits;
    const auto& wire_data = pair_.wire().counters(0);
    const auto& wire_ack = pair_.wire().counters(1);
    result_.data_sent = wire_data.sent;
    result_.data_lost = wire_data.lost;
    result_.acks_sent = wire_ack.sent;
    result_.acks_lost = wire_ack.lost;
    const auto& tx = pair_.a().device->data_path_counters();
    const auto& rx = pair_.b().device->data_path_counters();
    result_.retransmitted = tx.tx_retransmitted;
    result_.timeouts = tx.timeouts;
    result_.naks = rx.naks_sent;
    result_.sacks = rx.sacks_sent;
    result_.rx_dropped_sequence = rx.rx_dropped_sequence;
    result_.rx_out_of_order = rx.rx_out_of_order;
    result_.pipeline_drops = rx.rx_pipeline_drops + tx.rx_pipeline_drops;
    result_.pipeline_stalls = rx.pipeline_stalls + tx.pipeline_stalls;
    if (const auto* fasr =
            dynamic_cast<const rnic::recovery::FasrEngine*>(&pair_.b().device->recovery_engine())) {
      const rnic::recovery::FasrPoolUsage& u = fasr->pool().usage();
      result_.fast_recoveries = u.fast_recoveries;
      result_.slow_recoveries = u.slow_recoveries;
      result_.fast_path_packets = u.fast_path_packets;
      result_.slow_path_packets = u.slow_path_packets;
      result_.pool_fallbacks = u.fallbacks;
      result_.pool_peak_blocks = u.peak_blocks;
    }
    result_.events = pair_.kernel().executed();
    result_.simulated_us = pair_.kernel().now().microseconds();
    result_.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return result_;
  }

 private:
  sim::NicPairConfig config() const {
    sim::NicPairConfig c;
    c.mtu = o_.mtu;
    c.wire.rate = gigabits(o_.rate_gbps);
    c.wire.delay = one_way_delay(o_);
    c.wire.loss = o_.burst_len > 1 ? 0 : loss_;  // else BurstLoss drops
    c.wire.seed = o_.seed;
    c.device.seed = o_.seed;
    c.device.recovery.kind = engine_;
    c.device.recovery.bdp_packets = o_.bdp_packets;
    c.device.recovery.rto_low = microseconds(o_.rto_low_us);
    c.device.recovery.rto_high = microseconds(o_.rto_high_us);
    c.device.recovery.gbn_min_rto = microseconds(o_.gbn_min_rto_us);
    c.device.recovery.srnic_bitmap_access = Time::ps(std::llround(o_.srnic_stall_ns * 1e3));
    c.device.data_path.max_send_wr = std::max<uint32_t>(4096, o_.outstanding);
    c.device.data_path.max_recv_wr = std::max<uint32_t>(4096, 2 * o_.outstanding);
    if (o_.pipeline) {
      rnic::ReceivePipelineConfig p;
      p.service_rate = gigabits(o_.pipeline_gbps);
      p.per_packet = Time::ps(std::llround(o_.pipeline_per_packet_ns * 1e3));
      p.buffer = Bytes::KiB(o_.pipeline_buffer_kib);
      c.device.receive_pipeline = p;
    }
    c.timeout = static_cast<uint8_t>(o_.gbn_timeout);
    c.retry_cnt = static_cast<uint8_t>(o_.retry_cnt);
    c.buffer_bytes = kBufferBytes;
    c.cq_entries = std::max<size_t>(4096, size_t{4} * o_.outstanding);
    return c;
  }

  uint64_t slot_of(uint64_t id) const { return id % slots_; }

  void post_next() {
    const uint64_t id = next_id_++;
    const uint64_t offset = slot_of(id) * o_.message_bytes;
    sim::NicPair::Side& a = pair_.a();
    rnic::SendWr wr;
    wr.wr_id = id;
    wr.opcode = wr_opcode(o_);
    wr.sge = rnic::Sge{kSrcBase + offset, o_.message_bytes, a.mr->lkey};
    if (wr.opcode == rnic::WrOpcode::send) {
      sim::NicPair::Side& b = pair_.b();
      b.qp->post_recv(rnic::RecvWr{id, rnic::Sge{kDstBase + offset, o_.message_bytes, b.mr->lkey}});
    } else {
      wr.remote_addr = kDstBase + offset;
      wr.rkey = pair_.b().mr->rkey;
    }
    a.qp->post_send(wr);
  }

  void drain(bool counting) {
    const Time now = pair_.kernel().now();
    if (wr_opcode(o_) == rnic::WrOpcode::send) {
      for (const rnic::WorkCompletion& wc : pair_.b().poll()) {
        if (wc.status != rnic::WcStatus::success) fail(wc, now);
      }
    }
    for (const rnic::WorkCompletion& wc : pair_.a().poll()) {
      if (wc.status != rnic::WcStatus::success) {
        fail(wc, now);
        return;
      }
      result_.longest_gap_us =
          std::max(result_.longest_gap_us, (now - last_completion_).microseconds());
      last_completion_ = now;
      if (counting) {
        ++result_.messages;
        result_.bytes += o_.message_bytes;
      }
      if (o_.verify_every > 0 && wc.wr_id % o_.verify_every == 0) {
        const uint64_t offset = slot_of(wc.wr_id) * o_.message_bytes;
        ++result_.verified;
        if (!rnic::same_content(*pair_.a().memory, kSrcBase + offset, *pair_.b().memory,
                                kDstBase + offset, o_.message_bytes)) {
          ++result_.verify_failures;
        }
      }
      post_next();
    }
  }

  void fail(const rnic::WorkCompletion& wc, Time now) {
    if (!result_.qp_error.empty()) return;
    result_.qp_error = std::string(rnic::to_string(wc.status));
    result_.qp_error_at_us = now.microseconds();
  }

  const Options& o_;
  EngineKind engine_;
  double loss_;
  std::deque<BurstLoss> bursts_;  // before pair_: the wire's filters point here
  sim::NicPair pair_;
  uint64_t slots_ = 0;
  uint64_t next_id_ = 0;
  Time last_completion_ = Time::zero();
  Result result_;
};

nlohmann::json to_json(const Result& r) {
  return {{"engine", rnic::recovery::to_string(r.engine)},
          {"loss", r.loss},
          {"goodput_gbps", r.goodput_gbps},
          {"goodput_fraction", r.goodput_fraction},
          {"ceiling_fraction", r.ceiling_fraction},
          {"packets_per_rtt", r.packets_per_rtt},
          {"messages", r.messages},
          {"bytes", r.bytes},
          {"verified", r.verified},
          {"verify_failures", r.verify_failures},
          {"qp_error", r.qp_error},
          {"qp_error_at_us", r.qp_error_at_us},
          {"longest_gap_us", r.longest_gap_us},
          {"last_completion_us", r.last_completion_us},
          {"data_packets_sent", r.data_sent},
          {"data_packets_lost", r.data_lost},
          {"ack_packets_sent", r.acks_sent},
          {"ack_packets_lost", r.acks_lost},
          {"retransmitted", r.retransmitted},
          {"timeouts", r.timeouts},
          {"naks_sent", r.naks},
          {"sacks_sent", r.sacks},
          {"rx_dropped_sequence", r.rx_dropped_sequence},
          {"rx_out_of_order", r.rx_out_of_order},
          {"pipeline_drops", r.pipeline_drops},
          {"pipeline_stalls", r.pipeline_stalls},
          {"fast_recoveries", r.fast_recoveries},
          {"slow_recoveries", r.slow_recoveries},
          {"fast_path_packets", r.fast_path_packets},
          {"slow_path_packets", r.slow_path_packets},
          {"pool_fallbacks", r.pool_fallbacks},
          {"pool_peak_blocks", r.pool_peak_blocks},
          {"events", r.events},
          {"simulated_us", r.simulated_us},
          {"wall_seconds", r.wall_seconds}};
}

nlohmann::json scenario_json(const Options& o) {
  nlohmann::json s = {
      {"message_bytes", o.message_bytes},
      {"opcode", o.opcode},
      {"rate_gbps", o.rate_gbps},
      {"rtt_us", o.rtt_us},
      {"one_way_delay_us", one_way_delay(o).microseconds()},
      {"mtu", o.mtu},
      {"duration_us", o.duration_us},
      {"warmup_us", o.warmup_us},
      {"outstanding", o.outstanding},
      {"loss_applies_to", o.burst_len > 1
                              ? "both directions (data and ACK/NAK/SACK), Gilbert bursts per "
                                "direction"
                              : "both directions (data and ACK/NAK/SACK), independently per "
                                "packet"},
      {"burst_len", o.burst_len},
      {"qp_rate_gbps", o.qp_rate_gbps},
      {"gbn_timeout", o.gbn_timeout},
      {"gbn_qp_timeout_us", 4.096 * std::ldexp(1.0, o.gbn_timeout)},
      {"gbn_min_rto_us", o.gbn_min_rto_us},
      {"retry_cnt", o.retry_cnt},
      {"bdp_packets", o.bdp_packets},
      {"rto_low_us", o.rto_low_us},
      {"rto_high_us", o.rto_high_us},
      {"pipeline", o.pipeline},
      {"srnic_stall_ns", o.srnic_stall_ns},
      {"seed", o.seed},
  };
  if (o.pipeline) {
    s["pipeline_gbps"] = o.pipeline_gbps;
    s["pipeline_per_packet_ns"] = o.pipeline_per_packet_ns;
    s["pipeline_buffer_kib"] = o.pipeline_buffer_kib;
  }
  return s;
}

void write_csv(const std::string& path, const Options& o, const std::vector<Result>& results) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write {}: check that its folder exists and is writable", path);
  out << "engine,loss,goodput_gbps,goodput_fraction,ceiling_fraction,messages,timeouts,"
         "retransmitted,data_packets_sent,data_packets_lost,ack_packets_lost,naks_sent,"
         "sacks_sent,pipeline_drops,pipeline_stalls,verify_failures,qp_error,gbn_timeout,"
         "gbn_min_rto_us,pipeline,duration_us,longest_gap_us,last_completion_us,"
         "fast_recoveries,slow_recoveries,fast_path_packets,slow_path_packets,pool_fallbacks\n";
  for (const Result& r : results) {
    out << fmt::format(
        "{},{},{:.4f},{:.5f},{:.5f},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.1f},{:.1f},"
        "{},{},{},{},{}\n",
        rnic::recovery::to_string(r.engine), r.loss, r.goodput_gbps, r.goodput_fraction,
        r.ceiling_fraction, r.messages, r.timeouts, r.retransmitted, r.data_sent, r.data_lost,
        r.acks_lost, r.naks, r.sacks, r.pipeline_drops, r.pipeline_stalls, r.verify_failures,
        r.qp_error, o.gbn_timeout, o.gbn_min_rto_us, o.pipeline ? 1 : 0, o.duration_us,
        r.longest_gap_us, r.last_completion_us, r.fast_recoveries, r.slow_recoveries,
        r.fast_path_packets, r.slow_path_packets, r.pool_fallbacks);
  }
}

void print_table(const std::vector<Result>& results) {
  fmt::print("{:<6} {:>8} {:>9} {:>7} {:>7} {:>9} {:>8} {:>8} {:>8} {:>9} {:>11} {:>7} {:>7}\n",
             "engine", "loss", "Gb/s", "line%", "max%", "retx%", "timeouts", "naks", "sacks",
             "pipe-drop", "max-gap-us", "errors", "fast%");
  for (const Result& r : results) {
    const double retx =
        r.data_sent == 0 ? 0 : 100.0 * static_cast<double>(r.retransmitted) / r.data_sent;
    // FaSR: the share of recovery episodes that stayed on the fast path.
    const uint64_t episodes = r.fast_recoveries + r.slow_recoveries;
    const std::string fast =
        episodes == 0 ? "-"
                      : fmt::format("{:.1f}%", 100.0 * static_cast<double>(r.fast_recoveries) /
                                                   static_cast<double>(episodes));
    fmt::print(
        "{:<6} {:>7.3g}% {:>9.2f} {:>6.1f}% {:>6.1f}% {:>8.1f}% {:>8} {:>8} {:>8} {:>9} {:>11.1f} "
        "{:>7} {:>7}\n",
        rnic::recovery::to_string(r.engine), r.loss * 100, r.goodput_gbps, r.goodput_fraction * 100,
        r.ceiling_fraction * 100, retx, r.timeouts, r.naks, r.sacks, r.pipeline_drops,
        r.longest_gap_us, r.qp_error.empty() ? "-" : r.qp_error, fast);
  }
}

// The longest retransmission timeout the engine may wait.
double largest_rto_us(const Options& o, EngineKind engine) {
  if (engine != EngineKind::gbn) return o.rto_high_us;
  const double qp = o.gbn_timeout == 0 ? 0 : 4.096 * std::ldexp(1.0, o.gbn_timeout);
  return std::max(qp, o.gbn_min_rto_us);
}

void check(const Options& o) {
  for (double l : o.losses) {
    if (!(l >= 0 && l < 1))
      throw Error("--loss {} is outside [0, 1): give fractions, 0.01 = 1%", l);
  }
  rnic::check_mtu(o.mtu);
  if (o.message_bytes == 0) throw Error("--message-bytes must be positive");
  if (o.rate_gbps <= 0) throw Error("--rate-gbps must be positive");
  if (o.duration_us <= o.warmup_us) {
    throw Error("--duration-us {} must exceed --warmup-us {}", o.duration_us, o.warmup_us);
  }
  if (o.outstanding == 0) throw Error("--outstanding must be at least 1");
  if (!(o.burst_len >= 1)) throw Error("--burst-len {} must be at least 1 packet", o.burst_len);
  for (double l : o.losses) {
    if (o.burst_len > 1 && l / (o.burst_len * (1 - l)) > 1) {
      throw Error("--loss {} cannot average bursts of {} packets: use a longer --burst-len", l,
                  o.burst_len);
    }
  }
  if (o.qp_rate_gbps < 0 || o.qp_rate_gbps > o.rate_gbps) {
    throw Error("--qp-rate-gbps {} must be in [0, --rate-gbps {}] (0: no pacing)", o.qp_rate_gbps,
                o.rate_gbps);
  }
  if (o.gbn_min_rto_us < 0) throw Error("--gbn-min-rto must not be negative");
  if (o.pipeline && (o.pipeline_gbps <= 0 || o.pipeline_buffer_kib == 0)) {
    throw Error("--pipeline-gbps and --pipeline-buffer-kib must be positive");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "bifrost-rnic-loss: goodput of one RC QP streaming messages over a lossy wire, per "
      "loss-recovery engine (loss applies to data and ACKs alike)"};
  app.add_option("--engine,-e", o.engines,
                 "gbn, irn, srnic, fasr or all (gbn, irn, srnic; comma-separated list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"gbn", "irn", "srnic", "fasr", "all"}))
      ->capture_default_str();
  app.add_option("--loss,-l", o.losses,
                 "loss probabilities per packet and direction, comma-separated (0.01 = 1%)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--message-bytes", o.message_bytes, "bytes per message")->capture_default_str();
  app.add_option("--opcode", o.opcode, "write (RDMA WRITE) or send")
      ->check(CLI::IsMember({"write", "send"}))
      ->capture_default_str();
  app.add_option("--rate-gbps", o.rate_gbps, "line rate, each direction")->capture_default_str();
  app.add_option("--rtt-us", o.rtt_us, "base RTT: MTU frame + ACK serialization + 2 x delay")
      ->capture_default_str();
  app.add_option("--mtu", o.mtu, "path MTU (256..4096)")->capture_default_str();
  app.add_option("--duration-us", o.duration_us, "simulated time per point")->capture_default_str();
  app.add_option("--warmup-us", o.warmup_us, "completions before this are not counted")
      ->capture_default_str();
  app.add_option("--outstanding", o.outstanding, "work requests kept posted")
      ->capture_default_str();
  app.add_option("--burst-len", o.burst_len,
                 "mean loss burst in line-rate packet slots (Gilbert model, each direction; the "
                 "loss rate stays --loss); 1 = independent loss")
      ->capture_default_str();
  app.add_option("--qp-rate-gbps", o.qp_rate_gbps,
                 "pace the QP at this rate (its share of the link among N QPs); 0 = no pacing")
      ->capture_default_str();
  app.add_option("--gbn-timeout", o.gbn_timeout,
                 "RC QP timeout exponent: 4.096 us * 2^t (GBN's RTO; 0 = infinite)")
      ->check(CLI::Range(0, 31))
      ->capture_default_str();
  app.add_option("--gbn-min-rto", o.gbn_min_rto_us, "GBN: floor under the QP timeout, us")
      ->capture_default_str();
  app.add_option("--retry-cnt", o.retry_cnt, "RC retry count before the QP fails")
      ->check(CLI::Range(0, 7))
      ->capture_default_str();
  app.add_option("--bdp-packets", o.bdp_packets, "IRN/SRNIC: packets in flight cap")
      ->capture_default_str();
  app.add_option("--rto-low-us", o.rto_low_us, "IRN/SRNIC: RTO with few packets in flight")
      ->capture_default_str();
  app.add_option("--rto-high-us", o.rto_high_us, "IRN/SRNIC: RTO otherwise")->capture_default_str();
  app.add_flag(
      "--pipeline", o.pipeline,
      "model the NICs' finite receive pipeline (needed for SRNIC's bitmap stalls to cost)");
  app.add_option("--pipeline-gbps", o.pipeline_gbps, "receive pipeline service rate")
      ->capture_default_str();
  app.add_option("--pipeline-per-packet-ns", o.pipeline_per_packet_ns,
                 "receive pipeline fixed time per packet")
      ->capture_default_str();
  app.add_option("--pipeline-buffer-kib", o.pipeline_buffer_kib, "receive buffer")
      ->capture_default_str();
  app.add_option("--srnic-stall-ns", o.srnic_stall_ns,
                 "SRNIC: pipeline stall per host-memory bitmap access (PCIe round trip)")
      ->capture_default_str();
  app.add_option("--verify-every", o.verify_every,
                 "check the content of every Nth message at the receiver (0: never)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "wire loss and device seed")->capture_default_str();
  app.add_option("--json", o.json_file, "write the scenario and results as JSON");
  app.add_option("--csv", o.csv_file, "write the results as CSV");
  app.add_flag("--quiet,-q", o.quiet, "no progress lines on stderr");
  CLI11_PARSE(app, argc, argv);

  try {
    check(o);
    const std::vector<EngineKind> engines = parse_engines(o.engines);
    const size_t total = engines.size() * o.losses.size();
    if (!o.quiet) {
      fmt::print(stderr,
                 "bifrost-rnic-loss: {} points, {} B messages at {} Gb/s, RTT {} us (one-way "
                 "delay {:.3f} us), MTU {}, {} us simulated each; loss on data and ACKs\n",
                 total, o.message_bytes, o.rate_gbps, o.rtt_us, one_way_delay(o).microseconds(),
                 o.mtu, o.duration_us);
    }
    std::vector<Result> results;
    bool failed = false;
    for (EngineKind engine : engines) {
      for (double loss : o.losses) {
        const size_t index = results.size() + 1;
        Runner runner(o, engine, loss);
        auto progress = [&](double sim_us) {
          fmt::print(stderr, "  [{}/{}] {} loss {:g}: {:.0f}/{:.0f} us simulated\n", index, total,
                     rnic::recovery::to_string(engine), loss, sim_us, o.duration_us);
        };
        Result r = runner.run(o.quiet ? std::function<void(double)>{} : progress);
        if (!o.quiet) {
          fmt::print(stderr, "[{}/{}] {} loss {:g}: goodput {:.1f}% of line rate ({:.2f} s wall)\n",
                     index, total, rnic::recovery::to_string(engine), loss,
                     r.goodput_fraction * 100, r.wall_seconds);
        }
        if (r.verify_failures > 0) {
          fmt::print(stderr, "bifrost-rnic-loss: {} loss {:g}: {} of {} checked messages differ\n",
                     rnic::recovery::to_string(engine), loss, r.verify_failures, r.verified);
          failed = true;
        }
        const double rto_us = largest_rto_us(o, engine);
        if (r.longest_gap_us > 10 * rto_us) {
          fmt::print(
              stderr,
              "bifrost-rnic-loss: {} loss {:g}: WARNING no completion for {:.0f} us (last at "
              "{:.0f} us), over 10 x the RTO of {:.0f} us: the QP looks stuck\n",
              rnic::recovery::to_string(engine), loss, r.longest_gap_us, r.last_completion_us,
              rto_us);
        }
        if (!r.qp_error.empty()) {
          fmt::print(stderr,
                     "bifrost-rnic-loss: {} loss {:g}: the QP failed with {} at {:.1f} us\n",
                     rnic::recovery::to_string(engine), loss, r.qp_error, r.qp_error_at_us);
        }
        results.push_back(std::move(r));
      }
    }
    print_table(results);
    if (!o.json_file.empty()) {
      nlohmann::json doc;
      doc["tool"] = "bifrost-rnic-loss";
      doc["scenario"] = scenario_json(o);
      doc["points"] = nlohmann::json::array();
      for (const Result& r : results) doc["points"].push_back(to_json(r));
      std::ofstream out(o.json_file);
      if (!out) {
        throw Error("cannot write {}: check that its folder exists and is writable", o.json_file);
      }
      out << doc.dump(2) << "\n";
    }
    if (!o.csv_file.empty()) write_csv(o.csv_file, o, results);
    return failed ? 3 : 0;
  } catch (const Error& e) {
    fmt::print(stderr, "bifrost-rnic-loss: {}\n", e.what());
    return 2;
  }
}
