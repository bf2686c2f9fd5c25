#pragma once
// One Virtuoso multi-path connection: the paper's MP_ API (Table 1) over one RC QP per path.
// Path i is the pair (local alias, peer alias) of GID index first_alias + i; every QP is in
// the endpoint's PD and completes into its one shared CQ, and everything runs from the
// scheduler's events (no threads). Beneath the API:
//
//  - the decomposer cuts an MP WRITE / READ / large SEND into per-path sub-flows of the load
//    balancer's sizes (eq. (1) by default), each cut into WRs no larger than the chunk policy's
//    chunk, posted round-robin over the path QPs; one MP completion per MP WR after every
//    constituent WR completed (matched by WR id);
//  - the reassembler (reassembler.h) keeps the receiver passive for WRITE and READ, delivers a
//    small MP SEND (one SEND on one path) and a large one (WRITEs across paths into the buffer
//    the receiver advertised, then an empty SEND once every WRITE is acknowledged);
//  - path probing measures each path's capacity from the FCT of a probe WRITE, once per host
//    pair when a PathEstimateCache is shared;
//  - a QP failed with RETRY_EXC is brought back on the same path (ERR -> RESET -> INIT -> RTR
//    -> RTS, same alias pair and UDP source port, PSNs resynchronised over the UD channel by
//    PathResync), after the NIC's modelled recovery cost, and its unfinished WRs go again.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "bifrost/core/inplace_function.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/endpoint_handler.h"
#include "bifrost/transport/message.h"
#include "bifrost/transport/path.h"
#include "bifrost/transport/path_resync.h"
#include "bifrost/transport/virtuoso/chunk_policy.h"
#include "bifrost/transport/virtuoso/load_balancer.h"
#include "bifrost/transport/virtuoso/path_estimates.h"
#include "bifrost/transport/virtuoso/path_oracle.h"
#include "bifrost/transport/virtuoso/virtuoso_config.h"
#include "bifrost/transport/virtuoso/virtuoso_stats.h"

namespace bifrost::transport::virtuoso {

class Reassembler;

enum class MpOp : uint8_t { write, read, send };

// An MP work request (MP_ibv_post_send): WRITE and READ name the peer's memory; SEND goes to
// the peer's next MP RECV.
struct MpWr {
  uint64_t wr_id = 0;
  MpOp op = MpOp::write;
  MessageBuffer local;
  RemoteAddress remote;  // WRITE / READ
};

struct MpCompletion {
  uint64_t wr_id = 0;
  MpOp op = MpOp::write;
  bool ok = true;
  uint64_t bytes = 0;
  uint32_t parts = 0;  // constituent WRs that completed it (posted again ones included)
};

// An MP RECV's completion: a whole MP SEND is in its buffer (ok), or the MP SEND was longer
// than the buffer (not ok: a large one wrote nothing, a small one only what fits).
struct MpReceive {
  uint64_t wr_id = 0;
  uint64_t bytes = 0;
  bool ok = true;
};

// What a peer needs to connect: the QPs (with each one's address and GID index) and where it
// takes probe WRITEs.
struct MpOffer {
  ConnectionOffer connection;
  RemoteAddress probe_target;
  uint64_t probe_bytes = 0;
};

using MpCompletionHandler = InplaceFunction<void(const MpCompletion&), 32>;
using MpReceiveHandler = InplaceFunction<void(const MpReceive&), 32>;

class MpConnection final : public EndpointHandler, private PathResyncOwner {
 public:
  // Creates one RC QP per path. `cache` (may be null) is shared by connections whose path
  // estimates should outlive them; `balancer` and `chunks` replace the defaults (eq. (1);
  // FixedChunk, or ChunkSearch when config.chunk_search.enabled). Throws Error for an invalid
  // config or a NIC without the aliases the paths need.
  MpConnection(Endpoint& endpoint, const VirtuosoConfig& config, PathEstimateCache* cache = nullptr,
               std::unique_ptr<LoadBalancer> balancer = {},
               std::unique_ptr<ChunkPolicy> chunks = {});
  ~MpConnection() override;
  MpConnection(const MpConnection&) = delete;
  MpConnection& operator=(const MpConnection&) = delete;

  // MP_rdma_connect: both sides call it with the other's offer. Probing (if needed) starts
  // on the side whose address is lower... on both sides, each for its own direction: MP WRs
  // posted meanwhile wait for it.
  MpOffer offer() const;
  void connect(const MpOffer& peer);
  // MP_rdma_disconnect: destroys every QP of the connection. Throws Error while MP WRs are
  // still open (the application waits for their completions first).
  void disconnect();
  // MP_ibv_post_send. Throws Error for an empty or oversized MP WR, or when not connected.
  void post_send(const MpWr& wr);
  // MP_RECV: a buffer for the peer's next MP SEND, in order.
  void post_recv(uint64_t wr_id, const MessageBuffer& buffer);
  void set_completion_handler(MpCompletionHandler handler) { on_completion_ = std::move(handler); }
  // ECMP with the known hash (path_oracle.h): set before connect, each path QP's UDP source
  // port is chosen at connect so that the oracle puts path i's packets on path i.
  void set_path_oracle(PathOracle oracle) { oracle_ = std::move(oracle); }
  void set_receive_handler(MpReceiveHandler handler);

  bool connected() const { return peer_ != nullptr; }
  bool probing() const { return probe_.has_value(); }
  bool idle() const { return open_.empty(); }
  uint32_t path_count() const { return static_cast<uint32_t>(state_.size()); }
  const std::vector<Path>& paths() const;
  // Each path's capacity estimate, bit/s (1 each until probed, unless cached).
  const std::vector<double>& capacities() const { return capacity_; }
  const VirtuosoStats& stats() const { return stats_; }
  const ResyncStats& resync_stats() const { return resync_stats_; }
  const ChunkPolicy& chunk_policy() const { return *chunks_; }
  const LoadBalancer& load_balancer() const { return *balancer_; }
  uint32_t id() const { return id_; }

  // EndpointHandler.
  void on_send_completion(const rnic::WorkCompletion& wc) override;
  void on_receive_completion(const rnic::WorkCompletion& wc) override;
  UdVerdict on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                          Time nic_time) override;

  // For the reassembler.
  Endpoint& endpoint() { return endpoint_; }
  const ConnectionOffer& peer() const { return peer_->connection; }
  rnic::QueuePair& path_qp(size_t index) { return *state_[index].path.qp; }
  bool path_ready(size_t index) const { return state_[index].ready; }
  const VirtuosoConfig& config() const { return config_; }
  VirtuosoStats& mutable_stats() { return stats_; }
  // A large MP SEND's receive buffer, advertised by the peer for send sequence `sequence`.
  void on_advert(uint64_t sequence, RemoteAddress target, uint64_t length);

 private:
  // A byte range of one MP WR that one path still has to carry, cut into WRs when posted.
  struct Range {
    uint64_t mp = 0;  // MP WR sequence
    rnic::WrOpcode opcode = rnic::WrOpcode::rdma_write;
    uint64_t local = 0;
    uint32_t lkey = 0;
    uint64_t remote = 0;
    uint32_t rkey = 0;
    uint64_t length = 0;
    std::optional<uint32_t> imm;  // a receive-consuming SEND's immediate: goes whole
  };
  struct Posted {
    Range range;  // exactly what this WR carries
    uint32_t path = 0;
  };
  enum class Stage : uint8_t { waiting, moving, tail };
  struct Open {
    MpWr wr;
    Stage stage = Stage::moving;
    uint64_t uncut = 0;  // bytes not yet cut into WRs
    uint32_t parts_open = 0;
    uint32_t parts_done = 0;
    bool failed = false;
    bool probe = false;  // a probe flow: its FCT is the path's capacity sample
    uint32_t probe_path = 0;
    Time started;
    std::optional<uint64_t> send_sequence;  // SEND: which MP RECV it fills
    RemoteAddress target;                   // large SEND: the advertised buffer
  };
  struct PathState {
    Path path;
    std::deque<Range> queue;
    uint32_t in_flight = 0;
    bool ready = false;
  };
  struct Probe {
    uint32_t next_path = 0;
    Time started;
    std::vector<double> measured;
  };

  Path make_path(uint32_t index);
  // oracle_: each path's source port, so that it hashes onto its own path.
  void choose_ports();
  void connect_path(size_t index);
  // decomposer.cc
  uint64_t open_wr(const MpWr& wr, Stage stage);
  // Decomposes MP WR `mp` (after probing): WRITE / READ over the paths, a small SEND on one.
  void start(uint64_t mp);
  uint32_t next_path();
  // Splits [local, local + length) of MP WR `mp` over the paths (eq. (1)) into their queues.
  void decompose(uint64_t mp, rnic::WrOpcode opcode, uint64_t local, uint32_t lkey, uint64_t remote,
                 uint32_t rkey, uint64_t length);
  // One range on one path (a small SEND, a large SEND's tail, a probe).
  void enqueue(uint32_t path, const Range& range);
  void start_large_send(uint64_t mp);
  void post_tail(uint64_t mp);
  // Every part of `mp` completed: the tail of a large SEND goes, or the MP WR is complete.
  void advance(uint64_t mp);
  // Drops the queued ranges of a failed MP WR.
  void drop_queued(uint64_t mp);
  void schedule_pump();
  void pump();
  bool post_next(uint32_t path);
  void on_part_done(const Posted& posted, const rnic::WorkCompletion& wc);
  void finish(uint64_t mp);
  // path_probe.cc
  void start_probing();
  void probe_next();
  void on_probe_done(const Open& probe);
  // config.pace_paths: path `index`'s QP (every path's, without an index) paced at its
  // capacity estimate.
  void pace_path(size_t index);
  void pace_paths();
  // path_recovery.cc
  void on_path_failed(uint32_t path);
  void replace_path(size_t index) override;
  uint32_t path_qpn(size_t index) const override { return state_[index].path.qp->qp_num(); }
  uint32_t path_psn(size_t index) const override { return state_[index].path.first_psn; }
  void bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) override;
  void on_path_taken(size_t index) override;
  void on_resync_end(size_t index, bool ok) override;
  bool post_control(const ControlMessage& message) override;
  uint32_t peer_connection_id() const override { return peer_->connection.connection_id; }
  bool yields_to_peer() const override;
  void on_path_ready(size_t index);
  // Moves every posted WR of `path` back to the front of its queue (its QP was reset).
  void requeue_posted(uint32_t path);
  // Puts a WR's range back at the front of its path's queue.
  void requeue(const Posted& posted);
  void wake();
  // Cancels every timer of this connection (destruction, disconnect).
  void cancel_timers();

  Endpoint& endpoint_;
  uint32_t id_;
  VirtuosoConfig config_;
  PathEstimateCache* cache_;
  std::unique_ptr<LoadBalancer> balancer_;
  std::unique_ptr<ChunkPolicy> chunks_;
  PathOracle oracle_;
  std::vector<PathState> state_;
  mutable std::vector<Path> paths_view_;
  std::vector<double> capacity_;
  std::unique_ptr<MpOffer> peer_;
  std::unique_ptr<rnic::HostMemory> own_memory_;  // probe target, probe source, tail lengths
  const rnic::MemoryRegion* own_region_ = nullptr;
  std::unique_ptr<Reassembler> reassembler_;
  std::map<uint64_t, Open> open_;  // by MP WR sequence
  std::deque<uint64_t> waiting_for_probe_;
  std::unordered_map<uint64_t, Posted> posted_;                     // by constituent WR id
  std::map<uint64_t, std::pair<RemoteAddress, uint64_t>> adverts_;  // by send sequence
  std::map<uint64_t, uint64_t> sends_by_sequence_;  // open MP SENDs: send sequence -> MP WR
  std::optional<Probe> probe_;
  uint64_t next_mp_ = 0;
  uint64_t next_send_sequence_ = 0;
  uint64_t next_wr_id_ = 1;
  uint32_t round_robin_ = 0;
  bool pump_scheduled_ = false;
  bool awake_ = false;
  world::TimerId pump_timer_;
  world::TimerId awake_timer_;
  std::vector<world::TimerId> ready_timer_;  // per path: the end of its QP recovery cost
  ResyncStats resync_stats_;
  PathResync resync_;
  MpCompletionHandler on_completion_;
  VirtuosoStats stats_;
};

}  // namespace bifrost::transport::virtuoso
