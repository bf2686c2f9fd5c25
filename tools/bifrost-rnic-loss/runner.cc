#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/core/fairness.h"
#include "bifrost/core/rng.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/requester.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/sim/nic_pair.h"
#include "bifrost/wire/frame.h"

namespace bifrost::rnic_loss {

namespace {

constexpr uint64_t kBufferBytes = uint64_t{1} << 34;  // each side; TokenMemory is sparse
constexpr uint64_t kSrcBase = sim::NicPair::kBufferBase;
constexpr uint64_t kDstBase = sim::NicPair::kBufferBase + kBufferBytes / 2;
constexpr Time kPollInterval = Time::us(1);
constexpr Time kAckSampleInterval = Time::ms(1);

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
    // The messages' source: a's for WRITE and SEND, b's for READ (both when mixed).
    if (mixed(o) || wr_opcode(o) != rnic::WrOpcode::rdma_read) {
      pair_.a().memory->fill(kSrcBase, slots_ * o.message_bytes, 1);
    }
    if (mixed(o) || wr_opcode(o) == rnic::WrOpcode::rdma_read) {
      pair_.b().memory->fill(kSrcBase, slots_ * o.message_bytes, 1);
    }
    const bool data_only = o.loss_on == "data";
    if (data_only) pair_.wire().set_loss(1 - data_side(o), 0);
    if (o.burst_len > 1 && loss > 0) {
      for (int side = 0; side < 2; ++side) {
        if (data_only && side != data_side(o)) continue;
        BurstLoss* b =
            &bursts_.emplace_back(pair_.kernel(), slot_time(o), loss, o.burst_len, o.seed, side);
        pair_.wire().set_drop_filter(side, [b](const world::Packet&) { return b->drop(); });
      }
    }
    add_qps();
  }

  Result run(const std::function<void(double)>& progress) {
    const auto wall_start = std::chrono::steady_clock::now();
    auto last_report = wall_start;
    const Time end = microseconds(o_.duration_us);
    const Time warmup = microseconds(o_.warmup_us);
    start_qps();
    // The application: polls every microsecond, reposts per completion.
    std::function<void()> poll = [&] {
      const Time now = pair_.kernel().now();
      if (now >= next_ack_sample_ || (!window_opened_ && now >= warmup)) {
        sample_acked(now >= warmup);
        next_ack_sample_ = now + kAckSampleInterval;
      }
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
    // Mixed READ/WRITE moves data both ways: the capacity is both directions of the wire.
    const double capacity_gbps = mixed(o_) ? 2 * o_.rate_gbps : o_.rate_gbps;
    result_.goodput_fraction = result_.goodput_gbps / capacity_gbps;
    result_.acked_goodput_fraction = acked_goodput_gbps(measured) / capacity_gbps;
    const auto& engine = pair_.a().device->recovery_engine();
    result_.ceiling_fraction = ceiling_fraction(o_, engine.selective(), engine.lean_sr_header());
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
    result_.fnacks = rx.fnacks_sent;
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
    const rnic::QpContextCache& cache = pair_.b().device->context_cache();
    result_.cache_hits = cache.hits();
    result_.cache_misses = cache.misses();
    result_.cache_contexts = cache.entries();
    const rnic::QpContextCache& requester_cache = pair_.a().device->context_cache();
    result_.requester_cache_hits = requester_cache.hits();
    result_.requester_cache_misses = requester_cache.misses();
    spread_across_qps();
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
    c.device.recovery.lean_sr_header = o_.lean_sr_header;
    c.device.recovery.gbn_min_rto = microseconds(o_.gbn_min_rto_us);
    c.device.recovery.srnic_bitmap_access = Time::ps(std::llround(o_.srnic_stall_ns * 1e3));
    c.device.data_path.ack_every_packets = o_.ack_every;
    c.device.data_path.ack_delay = microseconds(o_.ack_delay_us);
    c.device.data_path.burst_packets = o_.burst_packets;
    c.device.data_path.read_gap_waits_for_timeout = o_.read_gap == "timeout";
    c.device.data_path.max_send_wr = std::max<uint32_t>(4096, o_.outstanding);
    c.device.data_path.max_recv_wr = std::max<uint32_t>(4096, 2 * o_.outstanding);
    if (pipeline_modelled(o_)) {
      rnic::ReceivePipelineConfig p;
      p.service_rate = gigabits(o_.pipeline_gbps);
      p.per_packet = Time::ps(std::llround(o_.pipeline_per_packet_ns * 1e3));
      p.buffer = Bytes::KiB(o_.pipeline_buffer_kib);
      c.device.receive_pipeline = p;
    }
    c.device.context_cache.capacity = Bytes(o_.context_cache_bytes);
    c.device.context_cache.miss_penalty = Time::ps(std::llround(o_.cache_miss_ns * 1e3));
    c.device.context_cache.concurrent_fetches = o_.context_fetches;
    if (o_.clients > 1) {
      // b stands for the clients' NICs: their caches and pipelines together.
      rnic::DeviceConfig b = c.device;
      b.context_cache.capacity = Bytes(o_.context_cache_bytes * o_.clients);
      if (b.receive_pipeline) {
        b.receive_pipeline->service_rate = gigabits(o_.pipeline_gbps * o_.clients);
        b.receive_pipeline->buffer = Bytes::KiB(o_.pipeline_buffer_kib * o_.clients);
      }
      c.device_b = b;
    }
    c.timeout = static_cast<uint8_t>(o_.gbn_timeout);
    c.retry_cnt = static_cast<uint8_t>(o_.retry_cnt);
    c.buffer_bytes = kBufferBytes;
    c.cq_entries = std::max<size_t>(4096, size_t{4} * o_.outstanding * o_.qps);
    return c;
  }

  uint64_t slot_of(uint64_t id) const { return id % slots_; }

  // The pair's own QPs are pair 0; --qps adds the rest, each paced like the first.
  void add_qps() {
    senders_.push_back(pair_.a().qp);
    receivers_.push_back(pair_.b().qp);
    for (uint32_t q = 1; q < o_.qps; ++q) {
      const sim::NicPair::QpPair extra = pair_.add_qp_pair();
      senders_.push_back(extra.a);
      receivers_.push_back(extra.b);
    }
    for (uint32_t q = 0; q < senders_.size(); ++q) {
      index_of_.emplace(senders_[q]->qp_num(), q);
      if (o_.qp_rate_gbps > 0) {
        pair_.a().device->set_rate_limit(*senders_[q], gigabits(o_.qp_rate_gbps));
      }
    }
    counted_.assign(senders_.size(), 0);
  }

  // Pair q starts at q / qps of the start spread: QPs set up one after another warm the
  // context cache a miss at a time instead of all missing in the same round.
  void start_qps() {
    const Time spread = microseconds(o_.start_spread_us);
    const auto qps = static_cast<int64_t>(senders_.size());
    for (uint32_t q = 0; q < senders_.size(); ++q) {
      auto start = [this, q] {
        for (uint32_t i = 0; i < o_.outstanding; ++i) post_next(q);
      };
      const Time at = spread * static_cast<int64_t>(q) / qps;
      if (at == Time::zero()) {
        start();
      } else {
        pair_.kernel().at(at, start);
      }
    }
  }

  // Adds the packets each sender had acknowledged since the last sample, once the window is
  // open. Sampled every millisecond, so 24-bit PSNs cannot wrap between two samples.
  void sample_acked(bool in_window) {
    if (last_una_.empty()) {
      for (const rnic::QueuePair* qp : senders_) {
        last_una_.push_back(qp->requester()->unacknowledged_psn());
      }
    }
    for (size_t q = 0; q < senders_.size(); ++q) {
      const uint32_t una = senders_[q]->requester()->unacknowledged_psn();
      if (window_opened_) acked_packets_ += (una - last_una_[q]) & wire::kPsnMask;
      last_una_[q] = una;
    }
    window_opened_ = window_opened_ || in_window;
  }

  double acked_goodput_gbps(Time measured) {
    sample_acked(true);
    const double per_packet = static_cast<double>(o_.message_bytes) /
                              std::ceil(static_cast<double>(o_.message_bytes) / o_.mtu);
    return static_cast<double>(acked_packets_) * per_packet * 8 / measured.seconds() / 1e9;
  }

  void spread_across_qps() {
    std::vector<double> shares(counted_.begin(), counted_.end());
    result_.qp_fairness = jain_fairness_index(shares);
    const double mean = static_cast<double>(result_.messages) / static_cast<double>(shares.size());
    result_.qp_min_fraction =
        mean == 0 ? 1 : *std::min_element(shares.begin(), shares.end()) / mean;
  }

  void post_next(uint32_t q) {
    const uint64_t id = next_id_++;
    const uint64_t offset = slot_of(id) * o_.message_bytes;
    sim::NicPair::Side& a = pair_.a();
    rnic::SendWr wr;
    wr.wr_id = id;
    wr.opcode = wr_opcode(o_, q);
    wr.sge = rnic::Sge{kSrcBase + offset, o_.message_bytes, a.mr->lkey};
    if (wr.opcode == rnic::WrOpcode::rdma_read) {
      // b's source lands in a's destination slot.
      wr.sge.addr = kDstBase + offset;
      wr.remote_addr = kSrcBase + offset;
      wr.rkey = pair_.b().mr->rkey;
    } else if (wr.opcode == rnic::WrOpcode::send) {
      sim::NicPair::Side& b = pair_.b();
      receivers_[q]->post_recv(
          rnic::RecvWr{id, rnic::Sge{kDstBase + offset, o_.message_bytes, b.mr->lkey}});
    } else {
      wr.remote_addr = kDstBase + offset;
      wr.rkey = pair_.b().mr->rkey;
    }
    senders_[q]->post_send(wr);
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
      const uint32_t q = index_of_.at(wc.qp_num);
      if (counting) {
        ++counted_[q];
        ++result_.messages;
        result_.bytes += o_.message_bytes;
      }
      if (o_.verify_every > 0 && wc.wr_id % o_.verify_every == 0) {
        const uint64_t offset = slot_of(wc.wr_id) * o_.message_bytes;
        ++result_.verified;
        const bool read = wr_opcode(o_, q) == rnic::WrOpcode::rdma_read;
        const rnic::HostMemory& source = read ? *pair_.b().memory : *pair_.a().memory;
        const rnic::HostMemory& target = read ? *pair_.a().memory : *pair_.b().memory;
        if (!rnic::same_content(source, kSrcBase + offset, target, kDstBase + offset,
                                o_.message_bytes)) {
          ++result_.verify_failures;
        }
      }
      post_next(q);
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
  std::vector<rnic::QueuePair*> senders_;  // pair q: senders_[q] on a writes to receivers_[q]
  std::vector<rnic::QueuePair*> receivers_;
  std::unordered_map<uint32_t, uint32_t> index_of_;  // sender QP number -> q
  std::vector<uint64_t> counted_;                    // messages completed after the warm-up
  bool window_opened_ = false;
  std::vector<uint32_t> last_una_;  // each sender's oldest unacknowledged PSN at the last sample
  uint64_t acked_packets_ = 0;      // acknowledged in the window
  Time next_ack_sample_ = Time::zero();
  uint64_t slots_ = 0;
  uint64_t next_id_ = 0;
  Time last_completion_ = Time::zero();
  Result result_;
};

}  // namespace

Result run_point(const Options& o, EngineKind engine, double loss,
                 const std::function<void(double)>& progress) {
  Runner runner(o, engine, loss);
  return runner.run(progress);
}

}  // namespace bifrost::rnic_loss
