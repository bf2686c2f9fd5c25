// The MP_ API of a Virtuoso connection: QPs per path, connect and disconnect, posting, and the
// shared CQ's completions. The decomposer is in decomposer.cc, probing in path_probe.cc, QP
// recovery in path_recovery.cc and the receive side in reassembler.cc.
#include "bifrost/transport/virtuoso/mp_connection.h"

#include "advert.h"
#include "bifrost/core/error.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/transport/wire/control_message.h"
#include "reassembler.h"

namespace bifrost::transport::virtuoso {

MpConnection::MpConnection(Endpoint& endpoint, const VirtuosoConfig& config,
                           PathEstimateCache* cache, std::unique_ptr<LoadBalancer> balancer,
                           std::unique_ptr<ChunkPolicy> chunks)
    : endpoint_(endpoint),
      config_(config),
      cache_(cache),
      balancer_(std::move(balancer)),
      chunks_(std::move(chunks)),
      resync_(*this, endpoint.scheduler(), resync_stats_, config.control_interval,
              config.control_attempts) {
  config_.validate();
  const size_t gids = endpoint_.device().gids().size();
  if (config_.first_alias + config_.paths > gids) {
    throw Error(
        "virtuoso: {} paths from alias {} need {} addresses; the NIC has {} (set host_aliases "
        ">= {} in [topology])",
        config_.paths, config_.first_alias, config_.first_alias + config_.paths, gids,
        config_.first_alias + config_.paths - 1);
  }
  if (!balancer_) balancer_ = std::make_unique<ProportionalSplit>();
  if (!chunks_) {
    if (config_.chunk_search.enabled) {
      chunks_ = std::make_unique<ChunkSearch>(config_.chunk_search, config_.paths, config_.block,
                                              config_.max_wr_bytes);
    } else {
      chunks_ = std::make_unique<FixedChunk>(config_.max_wr_bytes, config_.max_send_wr);
    }
  }
  id_ = endpoint_.add_handler(*this);
  for (uint32_t i = 0; i < config_.paths; ++i) {
    state_.emplace_back();
    state_.back().path = make_path(i);
  }
  capacity_.assign(config_.paths, 1.0);
  own_memory_ = endpoint_.make_memory(config_.probe_bytes + kTailBytes * 4096);
  own_region_ = &endpoint_.device().reg_mr(endpoint_.pd(), own_memory_->base(), own_memory_->size(),
                                           rnic::Access::local_write | rnic::Access::remote_write,
                                           own_memory_.get());
  reassembler_ = std::make_unique<Reassembler>(*this);
  resync_.resize(config_.paths);
  ready_timer_.resize(config_.paths);
  ++stats_.library_calls;  // creating the connection is part of MP_rdma_connect
}

MpConnection::~MpConnection() {
  cancel_timers();
  endpoint_.remove_handler(id_);
  reassembler_.reset();
  for (PathState& s : state_) endpoint_.device().destroy_qp(s.path.qp->qp_num());
  endpoint_.device().dereg_mr(own_region_->lkey);
}

Path MpConnection::make_path(uint32_t index) {
  rnic::QueuePair& qp = endpoint_.device().create_qp(endpoint_.pd(), rnic::QpType::rc,
                                                     endpoint_.data_cq(), endpoint_.data_cq());
  endpoint_.register_qp(qp.qp_num(), *this);
  return Path{.qp = &qp,
              .role = PathRole::active,
              .first_psn = endpoint_.fresh_psn(),
              .source_port = endpoint_.fresh_source_port(),
              .gid_index = static_cast<uint8_t>(config_.first_alias + index)};
}

const std::vector<Path>& MpConnection::paths() const {
  paths_view_.clear();
  for (const PathState& s : state_) paths_view_.push_back(s.path);
  return paths_view_;
}

MpOffer MpConnection::offer() const {
  MpOffer o;
  ConnectionOffer& c = o.connection;
  c.ip = endpoint_.ip();
  c.ud_qpn = endpoint_.ud_qpn();
  c.qkey = endpoint_.config().qkey;
  c.connection_id = id_;
  c.reliability = Reliability::hardware_rc;
  c.mtu = config_.mtu;
  for (const PathState& s : state_) {
    c.qps.push_back(ConnectionOffer::Qp{.qpn = s.path.qp->qp_num(), .first_psn = s.path.first_psn});
    c.qp_addresses.push_back(ConnectionOffer::QpAddress{
        .ip = endpoint_.device().gid(*s.path.gid_index), .gid_index = *s.path.gid_index});
  }
  o.probe_target = RemoteAddress{.addr = own_memory_->base(), .rkey = own_region_->rkey};
  o.probe_bytes = config_.probe_bytes;
  return o;
}

void MpConnection::choose_ports() {
  std::vector<world::Ipv4> local;
  std::vector<world::Ipv4> remote;
  for (size_t i = 0; i < state_.size(); ++i) {
    local.push_back(endpoint_.device().gid(*state_[i].path.gid_index));
    remote.push_back(peer_->connection.qp_addresses[i].ip);
  }
  const std::vector<uint16_t> ports =
      choose_source_ports(oracle_, local, remote, endpoint_.fresh_source_port());
  for (size_t i = 0; i < state_.size(); ++i) state_[i].path.source_port = ports[i];
}

void MpConnection::connect_path(size_t index) {
  endpoint_.connect_path(state_[index].path, peer_->connection, index, config_.mtu,
                         config_.rc_timeout, config_.rc_retry_cnt);
}

void MpConnection::connect(const MpOffer& peer) {
  ++stats_.library_calls;
  if (peer_) throw Error("virtuoso connection {} is already connected", id_);
  if (state_.empty()) throw Error("virtuoso connection {} was disconnected", id_);
  if (peer.connection.reliability != Reliability::hardware_rc) {
    throw Error("virtuoso connect: the peer is not a Virtuoso (RC) connection");
  }
  if (peer.connection.qps.size() != state_.size() ||
      peer.connection.qp_addresses.size() != state_.size()) {
    throw Error("virtuoso connect: the peer offers {} paths, this side has {}",
                peer.connection.qps.size(), state_.size());
  }
  peer_ = std::make_unique<MpOffer>(peer);
  if (oracle_) choose_ports();
  for (size_t i = 0; i < state_.size(); ++i) {
    connect_path(i);
    state_[i].ready = true;
  }
  reassembler_->start();
  // MP RECVs posted before the peer was known are advertised now.
  reassembler_->advertise_posted();
  start_probing();
}

void MpConnection::disconnect() {
  ++stats_.library_calls;
  if (!open_.empty() || !reassembler_->idle()) {
    throw Error("virtuoso disconnect: {} MP WRs and some MP RECVs are still open", open_.size());
  }
  cancel_timers();
  reassembler_.reset();
  for (PathState& s : state_) {
    endpoint_.forget_qp(s.path.qp->qp_num());
    endpoint_.device().destroy_qp(s.path.qp->qp_num());
  }
  state_.clear();
  posted_.clear();
  peer_.reset();
}

void MpConnection::post_send(const MpWr& wr) {
  ++stats_.library_calls;
  if (!peer_) throw Error("virtuoso post_send: not connected");
  if (wr.local.length == 0 || wr.local.length > config_.max_message) {
    throw Error("virtuoso post_send: {} bytes; MP WRs are 1 .. {} bytes", wr.local.length,
                config_.max_message);
  }
  if (wr.local.region == nullptr) throw Error("virtuoso post_send: the buffer has no region");
  ++stats_.mp_wrs;
  const uint64_t mp = open_wr(wr, Stage::moving);
  if (probe_) {
    waiting_for_probe_.push_back(mp);  // decomposed once the capacities are known
    return;
  }
  start(mp);
}

void MpConnection::post_recv(uint64_t wr_id, const MessageBuffer& buffer) {
  ++stats_.library_calls;
  if (buffer.region == nullptr) throw Error("virtuoso post_recv: the buffer has no region");
  reassembler_->post_recv(wr_id, buffer);
}

void MpConnection::set_receive_handler(MpReceiveHandler handler) {
  reassembler_->set_handler(std::move(handler));
}

void MpConnection::cancel_timers() {
  world::Scheduler& scheduler = endpoint_.scheduler();
  for (world::TimerId* t : {&pump_timer_, &awake_timer_}) {
    if (t->valid()) scheduler.cancel(*t);
    *t = {};
  }
  for (world::TimerId& t : ready_timer_) {
    if (t.valid()) scheduler.cancel(t);
    t = {};
  }
  pump_scheduled_ = false;
  awake_ = false;
}

void MpConnection::wake() {
  // One completion-channel event per scheduler turn with completions: what a thread blocked in
  // ibv_get_cq_event would see.
  ++stats_.cqes;
  if (awake_) return;
  awake_ = true;
  ++stats_.wakeups;
  awake_timer_ = endpoint_.scheduler().at(endpoint_.scheduler().now(), [this] {
    awake_timer_ = {};
    awake_ = false;
  });
}

void MpConnection::on_send_completion(const rnic::WorkCompletion& wc) {
  wake();
  const auto it = posted_.find(wc.wr_id);
  if (it == posted_.end()) return;  // a WR already moved back to its queue by a reset
  const Posted posted = it->second;
  posted_.erase(it);
  on_part_done(posted, wc);
}

void MpConnection::on_receive_completion(const rnic::WorkCompletion& wc) {
  wake();
  reassembler_->on_receive(wc);
}

UdVerdict MpConnection::on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                                      Time) {
  if (!peer_ || from.ip != peer_->connection.ip || from.qp_num != peer_->connection.ud_qpn) {
    return UdVerdict::unroutable_control;
  }
  if (const auto advert = decode_advert(bytes)) {
    if (advert->ack) {
      reassembler_->on_advert_ack(advert->sequence);
    } else {
      const auto ack = encode_advert(
          Advert{.connection = peer_connection_id(), .ack = true, .sequence = advert->sequence});
      endpoint_.post_ud_message(peer_->connection, ack);
      on_advert(advert->sequence, RemoteAddress{.addr = advert->addr, .rkey = advert->rkey},
                advert->length);
    }
    return UdVerdict::accepted;
  }
  const auto message = decode_control_message(bytes);
  if (!message || (message.value.kind != ControlKind::reconnect_request &&
                   message.value.kind != ControlKind::reconnect_reply)) {
    return UdVerdict::unroutable_control;
  }
  resync_.on_control(message.value);
  return UdVerdict::accepted;
}

}  // namespace bifrost::transport::virtuoso
