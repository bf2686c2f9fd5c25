// Path probing (§3.5): before its first MP WR, each side WRITEs probe_bytes (at least the
// paper's 512 KB) on each of its paths into the peer's probe area, one path at a time, and
// takes bytes / FCT as the path's capacity. One at a time, because concurrent probes would
// share the NIC and the host link, and a fast path would be measured at its share of them.
// A shared PathEstimateCache keeps the result per host pair; a later connection between the
// same hosts uses it and does not probe.
#include "bifrost/transport/virtuoso/mp_connection.h"

namespace bifrost::transport::virtuoso {

void MpConnection::start_probing() {
  if (!config_.probe) return;
  if (cache_ != nullptr) {
    if (auto known = cache_->find(endpoint_.ip(), peer_->connection.ip)) {
      if (known->size() == capacity_.size()) {
        capacity_ = std::move(*known);
        ++stats_.probe_cache_hits;
        pace_paths();
        return;
      }
    }
  }
  probe_ = Probe{.next_path = 0, .started = endpoint_.scheduler().now(), .measured = {}};
  probe_next();
}

void MpConnection::probe_next() {
  if (probe_->next_path == path_count()) {
    capacity_ = probe_->measured;
    if (cache_ != nullptr) cache_->store(endpoint_.ip(), peer_->connection.ip, capacity_);
    stats_.probe_time = endpoint_.scheduler().now() - probe_->started;
    probe_.reset();
    pace_paths();
    std::deque<uint64_t> waiting;
    waiting.swap(waiting_for_probe_);
    for (uint64_t mp : waiting) start(mp);
    return;
  }
  const uint32_t path = probe_->next_path;
  const uint64_t bytes = std::min(config_.probe_bytes, peer_->probe_bytes);
  const uint64_t mp = next_mp_++;
  Open& o = open_[mp];
  o.probe = true;
  o.probe_path = path;
  o.started = endpoint_.scheduler().now();
  o.wr.local = MessageBuffer{.region = own_region_, .addr = own_memory_->base(), .length = bytes};
  o.uncut = bytes;
  enqueue(path, Range{.mp = mp,
                      .opcode = rnic::WrOpcode::rdma_write,
                      .local = own_memory_->base(),
                      .lkey = own_region_->lkey,
                      .remote = peer_->probe_target.addr,
                      .rkey = peer_->probe_target.rkey,
                      .length = bytes,
                      .imm = std::nullopt});
  ++stats_.probes;
  schedule_pump();
}

void MpConnection::on_probe_done(const Open& probe) {
  const Time fct = endpoint_.scheduler().now() - probe.started;
  const double bits = static_cast<double>(probe.wr.local.length) * 8;
  probe_->measured.push_back(bits / fct.seconds());
  ++probe_->next_path;
  probe_next();
}

void MpConnection::pace_path(size_t index) {
  if (!config_.pace_paths || probe_) return;
  endpoint_.device().set_rate_limit(*state_[index].path.qp,
                                    Rate::bps(static_cast<int64_t>(capacity_[index])));
}

void MpConnection::pace_paths() {
  for (size_t i = 0; i < state_.size(); ++i) pace_path(i);
}

}  // namespace bifrost::transport::virtuoso
