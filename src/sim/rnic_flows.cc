#include "bifrost/sim/rnic_flows.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/rnic/cc/dcqcn.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/responder.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/rnic/work_request.h"

namespace bifrost::sim {

using namespace bifrost::rnic;

namespace {

constexpr uint64_t kBufferBase = 0x1000;
constexpr uint64_t kBufferBytes = uint64_t{1} << 44;
constexpr uint64_t kChunk = uint64_t{1} << 30;  // below the 2^31 message limit

metrics::FasrPoolNic pool_record(const std::string& nic, const recovery::FasrPool& pool) {
  const recovery::FasrPoolUsage& u = pool.usage();
  const recovery::FasrPoolOccupancy o = pool.occupancy();
  metrics::FasrPoolNic r;
  r.nic = nic;
  r.peak_units = u.peak_units;
  r.peak_blocks = u.peak_blocks;
  r.peak_bytes = (u.peak_bits + 7) / 8;
  r.mean_units = o.mean_units();
  r.mean_blocks = o.mean_blocks();
  r.mean_bytes = o.mean_bytes();
  r.observed = o.observed();
  r.units_exhausted = o.units_exhausted;
  r.unit_allocations = u.unit_allocations;
  r.block_allocations = u.block_allocations;
  r.fallbacks = u.fallbacks;
  r.unit_fallbacks = u.unit_fallbacks;
  r.fast_recoveries = u.fast_recoveries;
  r.slow_recoveries = u.slow_recoveries;
  return r;
}

}  // namespace

RnicFlows::RnicFlows(EventKernel& kernel, Network& network, const RnicFlowsConfig& config)
    : kernel_(kernel), network_(network), config_(config) {
  check_mtu(config.mtu);
  if (config.qp_type != QpType::rc && config.qp_type != QpType::uc) {
    throw Error("RNIC flows run over RC or UC QPs, not {}", to_string(config.qp_type));
  }
  if (config.qp_type == QpType::uc && (config.uc_message == 0 || config.uc_message > kChunk * 2)) {
    throw Error("UC message size {} is not valid; valid values: 1 .. 2^31 bytes",
                config.uc_message);
  }
  nics_.resize(network.host_count());
  for (uint32_t h = 0; h < network.host_count(); ++h) {
    net::Host& host = network.host(h);
    DeviceConfig dc = detail::host_device(config.device, config.device_by_host, h);
    dc.name = host.name();
    dc.gids = host.addresses();
    Nic& nic = nics_[h];
    nic.device = std::make_unique<Device>(kernel, dc);
    nic.device->attach(host);
    nic.pd = nic.device->alloc_pd();
    nic.cq = &nic.device->create_cq(1 << 20);
    nic.cq->set_handler([this, h] {
      if (nics_[h].poll_scheduled) return;
      nics_[h].poll_scheduled = true;
      kernel_.after(Time::zero(), [this, h] { poll(h); });
    });
    const MemoryRegion& mr = nic.device->reg_mr(nic.pd, kBufferBase, kBufferBytes,
                                                Access::local_write | Access::remote_write);
    nic.lkey = mr.lkey;
    nic.rkey = mr.rkey;
  }
}

RnicFlows::~RnicFlows() = default;

void RnicFlows::add(const workload::Flow& flow) {
  if (flow.id != flows_.size()) {
    throw Error("RNIC flows must be added in id order: expected {}, got {}", flows_.size(),
                flow.id);
  }
  if (flow.src >= nics_.size() || flow.dst >= nics_.size() || flow.src == flow.dst) {
    throw Error("flow {}: needs two different hosts below {}", flow.id, nics_.size());
  }
  flows_.push_back(flow);
  records_.emplace_back();
  active_.emplace_back();
  const auto id = static_cast<uint32_t>(flow.id);
  kernel_.at(flow.start, [this, id] { start(id); });
}

void RnicFlows::connect(QueuePair& qp, const Nic& peer, uint32_t peer_qpn, uint16_t sport,
                        uint8_t traffic_class) {
  QpConnection c;
  c.dest_ip = peer.device->gids().front();
  c.dest_qp_num = peer_qpn;
  c.path_mtu = config_.mtu;
  c.access = Access::remote_write;
  c.traffic_class = traffic_class;
  c.udp_sport = sport;
  c.timeout = config_.timeout;
  c.retry_cnt = config_.retry_cnt;
  c.rnr_retry = config_.rnr_retry;
  c.max_rd_atomic = 1;
  connect_qp(qp, c);
}

uint64_t RnicFlows::message_length(uint32_t id, uint64_t index) const {
  const uint64_t size = flows_[id].size.count();
  const uint64_t step = config_.qp_type == QpType::uc ? config_.uc_message : kChunk;
  return std::min(step, size - index * step);
}

void RnicFlows::start(uint32_t id) {
  const workload::Flow& f = flows_[id];
  Nic& src = nics_[f.src];
  Nic& dst = nics_[f.dst];
  Active& a = active_[id];
  RnicFlowRecord& r = records_[id];
  const bool uc = config_.qp_type == QpType::uc;
  a.src = f.src;
  a.dst = f.dst;
  a.sender = &src.device->create_qp(src.pd, config_.qp_type, *src.cq, *src.cq);
  a.receiver = &dst.device->create_qp(dst.pd, config_.qp_type, *dst.cq, *dst.cq);
  // The source port spreads flows over ECMP paths; the traffic class carries the priority
  // (DSCP = priority * 8, which the hosts' and switches' DSCP maps turn back into it).
  const auto sport = static_cast<uint16_t>(49152 + id % 16384);
  const auto tc = static_cast<uint8_t>(f.priority << 5);
  connect(*a.sender, dst, a.receiver->qp_num(), sport, tc);
  connect(*a.receiver, src, a.sender->qp_num(), sport, tc);
  if (config_.qp_rate) src.device->set_rate_limit(*a.sender, *config_.qp_rate);
  a.last_psn = a.receiver->responder()->expected_psn();
  // RC: 1 GiB chunks, the last with immediate data. UC: messages of uc_message bytes, each with
  // its index as immediate data and a receive of its own (a lost message leaves its receive to
  // the next one, so the count suffices).
  const uint64_t size = f.size.count();
  const uint64_t step = uc ? config_.uc_message : kChunk;
  r.messages = size == 0 ? 1 : (size + step - 1) / step;
  for (uint64_t i = 0; i < (uc ? r.messages : 1); ++i) {
    a.receiver->post_recv(RecvWr{id, Sge{kBufferBase, 0, dst.lkey}});
  }
  for (uint64_t i = 0; i < r.messages; ++i) {
    const uint64_t length = message_length(id, i);
    const uint64_t offset = i * step;
    const bool last = i + 1 == r.messages;
    SendWr wr;
    wr.wr_id = id;
    wr.opcode = last || uc ? WrOpcode::rdma_write_with_imm : WrOpcode::rdma_write;
    wr.sge = Sge{kBufferBase + offset, static_cast<uint32_t>(length), src.lkey};
    wr.remote_addr = kBufferBase + offset;
    wr.rkey = dst.rkey;
    wr.imm = uc ? static_cast<uint32_t>(i) : id;
    wr.signaled = last;
    r.packets += packet_count(length, config_.mtu);
    a.sender->post_send(wr);
  }
}

uint64_t RnicFlows::delivered_bytes(uint64_t id) {
  const uint64_t size = flows_[id].size.count();
  if (records_[id].complete) return size;
  Active& a = active_[id];
  if (config_.qp_type == QpType::uc) return a.message_bytes;
  if (a.receiver != nullptr) {
    const uint32_t psn = a.receiver->responder()->expected_psn();
    a.in_order += (psn - a.last_psn) & 0xFF'FFFF;  // 24-bit PSNs
    a.last_psn = psn;
  }
  return std::min(size, a.in_order * config_.mtu);
}

std::optional<QpRateSample> RnicFlows::sender_rate(uint64_t id) const {
  if (id >= active_.size() || records_[id].complete) return std::nullopt;
  rnic::QueuePair* qp = active_[id].sender;
  if (qp == nullptr) return std::nullopt;
  QpRateSample out;
  if (const auto& rp = qp->scheduling().dcqcn) {
    out.rate = rp->rate();
    out.alpha = rp->alpha();
  }
  return out;
}

void RnicFlows::poll(uint32_t host) {
  Nic& nic = nics_[host];
  nic.poll_scheduled = false;
  WorkCompletion batch[64];
  for (;;) {
    const size_t n = nic.cq->poll(64, batch);
    for (size_t i = 0; i < n; ++i) {
      const WorkCompletion& wc = batch[i];
      const auto id = static_cast<uint32_t>(wc.wr_id);
      Active& a = active_[id];
      if (wc.status != WcStatus::success) {
        finish(id, true);
        continue;
      }
      if (wc.opcode == WcOpcode::recv_rdma_with_imm && config_.qp_type == QpType::uc) {
        on_uc_message(id, wc.imm.value_or(0));
      } else if (wc.opcode == WcOpcode::recv_rdma_with_imm) {
        finish(id, false);
      } else if (a.sender != nullptr && wc.qp_num == a.sender->qp_num()) {
        nics_[a.src].device->destroy_qp(a.sender->qp_num());
        a.sender = nullptr;
      }
    }
    if (n < 64) break;
  }
}

// A UC message arrived whole. Messages of a flow leave in order on one path, so an index at or
// below one already counted is a duplicate (none without duplication in the fabric) and is not
// counted twice. After the last message the receiver is done: the flow completed if every
// message arrived; otherwise it stays unfinished (nothing is retransmitted).
void RnicFlows::on_uc_message(uint32_t id, uint32_t index) {
  Active& a = active_[id];
  RnicFlowRecord& r = records_[id];
  if (index < a.next_message || index >= r.messages) return;
  a.next_message = index + uint64_t{1};
  a.message_bytes += message_length(id, index);
  ++r.messages_received;
  if (a.next_message < r.messages) return;
  if (r.messages_received == r.messages) {
    finish(id, false);
  } else if (a.receiver != nullptr) {
    nics_[a.dst].device->destroy_qp(a.receiver->qp_num());
    a.receiver = nullptr;
  }
}

void RnicFlows::finish(uint32_t id, bool failed) {
  RnicFlowRecord& r = records_[id];
  Active& a = active_[id];
  if (!r.complete && !r.failed) {
    r.complete = !failed;
    r.failed = failed;
    r.finish = kernel_.now();
    if (!failed) ++completed_;
  }
  if (a.receiver != nullptr) {
    nics_[a.dst].device->destroy_qp(a.receiver->qp_num());
    a.receiver = nullptr;
  }
  if (failed && a.sender != nullptr) {
    nics_[a.src].device->destroy_qp(a.sender->qp_num());
    a.sender = nullptr;
  }
}

std::optional<metrics::FasrPoolMetrics> RnicFlows::fasr_pools() const {
  if (config_.device.recovery.kind != recovery::EngineKind::fasr) return std::nullopt;
  const recovery::FasrPoolConfig& c = config_.device.recovery.fasr_pool;
  metrics::FasrPoolMetrics m{c.units, c.blocks, c.block_bits, recovery::fasr_pool_bytes(c), {}};
  for (uint32_t h = 0; h < nics_.size(); ++h) {
    const auto& engine =
        dynamic_cast<const recovery::FasrEngine&>(nics_[h].device->recovery_engine());
    m.nics.push_back(pool_record(network_.host(h).name(), engine.pool()));
  }
  return m;
}

rnic::DataPathCounters RnicFlows::counters() const {
  DataPathCounters sum;
  for (const Nic& nic : nics_) sum += nic.device->data_path_counters();
  return sum;
}

}  // namespace bifrost::sim
