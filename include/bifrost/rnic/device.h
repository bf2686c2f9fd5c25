#pragma once
// A soft RoCEv2 NIC's verbs objects: it owns the GID table, the key stream, the hardware clock,
// and every PD, MR, CQ and QP created on it. References it returns stay valid until the object
// is destroyed on it (or the device is).
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/cc/dcqcn.h"
#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/context_fetches.h"
#include "bifrost/rnic/hw_clock.h"
#include "bifrost/rnic/memory_region.h"
#include "bifrost/rnic/nic_context.h"
#include "bifrost/rnic/qp_context_cache.h"
#include "bifrost/rnic/qp_transition_costs.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/rnic/rate_limiter.h"
#include "bifrost/rnic/receive_pipeline.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/world/address.h"
#include "bifrost/world/packet_port.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic {

struct DeviceConfig {
  std::string name = "rnic0";
  uint64_t seed = 1;                // master seed; the device derives its streams from its name
  std::vector<world::Ipv4> gids;    // source addresses; at least one
  uint32_t max_mtu = 4096;          // largest path MTU a QP may use
  size_t max_cq_entries = 1 << 22;  // like ibv_device_attr.max_cqe
  // The modelled cost of reading the NIC clock from software (about 1 us on ConnectX-4); the
  // data path charges it to whoever calls query_clock.
  Time clock_query_cost = Time::us(1);
  Time clock_offset;
  double clock_drift_ppm = 0;

  // The data path.
  DataPathConfig data_path{};
  recovery::RecoveryConfig recovery{};
  RateLimiterConfig rate_limiter{};
  // 0: every QP may get its own rate limiter. N > 0: ConnectX-3 Pro style, N limiters shared
  // by priority class (class % N), so QPs of one class share one rate, unless a QP is given a
  // limiter of its own choosing (Device::assign_limiter).
  size_t per_priority_limiters = 0;
  // The finite receive pipeline; unset: packets are processed the moment they arrive.
  std::optional<ReceivePipelineConfig> receive_pipeline{};
  // The on-chip QP-context cache (capacity 0: not modelled). Misses add to the receive
  // pipeline's service time, so they need receive_pipeline to cost anything.
  QpContextCacheConfig context_cache{};
  // NIC congestion control: DCQCN on every QP that receives a CNP, and CNPs sent for
  // CE-marked packets. Unset: CNPs are ignored and none are sent. Setting it also marks data
  // packets ECN-capable.
  std::optional<DcqcnConfig> dcqcn{};
  Time min_time_between_cnps = kDcqcnMinTimeBetweenCnps;
  CnpScope cnp_scope = CnpScope::per_qp;
  // ConnectX-5's slow restart (roce_slow_restart_en, rnic/nic_profile.h): a retransmission
  // timeout cuts the QP's DCQCN rate as a CNP would, so a QP that lost packets restarts slower
  // and regains its rate by DCQCN's increase. Needs dcqcn.
  bool slow_restart = false;
  // 0: DCQCN runs one reaction point per QP, pacing the QP's own limiter. N > 0: the NIC has N
  // reaction points, each with one rate limiter, shared by the QPs hashed to it (by QPN): a CNP
  // for any of them cuts the rate of all, and all their bytes count towards its increases. The
  // ConnectX-4-like profile's calibrated hardware limit (rnic/nic_profile.h); only DCQCN uses
  // these limiters, so with DCQCN off (Bifröst's software CC) it has no effect.
  size_t dcqcn_reaction_groups = 0;
  // Packets the device keeps queued in its port; its own scheduler orders the rest.
  uint32_t port_queue_packets = 2;
  // When a UC/UD send completes and what its CQE timestamp says. false: when its last packet
  // is handed to the port (the simulator, whose port holds two packets: early by at most two
  // packet times). true: when the port has taken that packet (it left the NIC, as on
  // hardware). The real world needs it: with a socket port of 64 packets, stamping at hand-off
  // counted hundreds of microseconds of the sender's own queue as path delay in Bifröst's RTT
  // samples, and the load-aware chunking shrank its chunks for it.
  bool complete_sends_at_transmit = false;
  // What recovering a QP from ERR and switching to a ready backup cost (transports wait them
  // out; the device only holds them). Neither may be negative.
  QpTransitionCosts qp_transitions{};
};

class Device final : public NicContext {
 public:
  // Throws Error for an empty GID table or a max_mtu that is not 256..4096 and a power of two.
  Device(world::Scheduler& scheduler, DeviceConfig config);
  ~Device() override;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  ProtectionDomain alloc_pd();
  // `memory` holds the region's bytes (see MemoryRegion::memory); it must outlive the region.
  const MemoryRegion& reg_mr(ProtectionDomain pd, uint64_t base, uint64_t length, Access access,
                             HostMemory* memory = nullptr);
  void dereg_mr(uint32_t lkey);
  const MemoryRegistry& memory() const override { return memory_; }

  // Throws Error if entries is 0 or above max_cq_entries.
  CompletionQueue& create_cq(size_t entries);
  // The QP number is 24 bits, unique among live QPs, never 0 or 1 (reserved as in IB).
  QueuePair& create_qp(ProtectionDomain pd, QpType type, CompletionQueue& send_cq,
                       CompletionQueue& recv_cq);
  // Throws Error if no live QP has this number.
  void destroy_qp(uint32_t qp_num);
  QueuePair* find_qp(uint32_t qp_num);

  // Connects the device to the network: it sends through `port` and receives what arrives
  // there. The port must outlive the device or be detached first.
  void attach(world::PacketPort& port);
  void detach();
  // Sets the hardware rate limit of `qp` (Rate 0: unlimited). In per-priority mode it sets the
  // limiter of the QP's class, shared with every QP of that class.
  void set_rate_limit(QueuePair& qp, Rate rate);
  // Per-priority mode only: `qp` is paced by limiter `index` (0..rate_limiter_bank_size() - 1)
  // whatever its traffic class, so QPs of one class need not share a rate and QPs need not take
  // distinct classes (and starve each other under strict priority) to get distinct limiters.
  // A shadow QP takes its primary's index. Throws Error outside per-priority mode or for an
  // index beyond the bank.
  void assign_limiter(QueuePair& qp, size_t index);
  // The number of shared limiters (DeviceConfig::per_priority_limiters); 0: one per QP. A
  // transport that needs a limiter per QP refuses a QP beyond this many.
  size_t rate_limiter_bank_size() const { return config_.per_priority_limiters; }
  // Per-priority mode: a limiter no one has claimed, now claimed (for a transport that gives
  // each QP its own and so may use each at most once), or nullopt when all are taken or the
  // mode is off; release_limiter gives one back.
  std::optional<size_t> claim_limiter();
  void release_limiter(size_t index);
  // The limiter pacing `qp` (its own, or its class's or assigned one in per-priority mode);
  // nullptr for a QP that never had a rate set outside per-priority mode.
  const RateLimiter* rate_limiter(QueuePair& qp) { return limiter_of(qp); }
  // Turns the NIC's DCQCN off while running (a non-stop upgrade's last step): no more CNPs
  // are sent or obeyed, and every QP that DCQCN was pacing goes back to an unlimited rate.
  void disable_dcqcn();

  const DataPathCounters& data_path_counters() const { return counters_; }
  const recovery::Engine& recovery_engine() const { return *engine_; }
  // NIC memory the recovery engine needs for `qps` queue pairs: base contexts + per-QP state +
  // shared state.
  uint64_t recovery_memory_bytes(uint64_t qps) const;
  const ReceivePipeline* receive_pipeline() const { return pipeline_ ? &*pipeline_ : nullptr; }
  const QpContextCache& context_cache() const { return cache_; }

  const std::string& name() const { return config_.name; }
  const std::vector<world::Ipv4>& gids() const { return config_.gids; }
  uint32_t max_mtu() const { return config_.max_mtu; }
  Time clock_query_cost() const { return config_.clock_query_cost; }
  const QpTransitionCosts& qp_transition_costs() const { return config_.qp_transitions; }
  const HwClock& clock() const { return clock_; }
  // The NIC clock now, as a CQE timestamp would carry it; while a packet with a known arrival
  // time is processed, that time (the real world's kernel receive timestamp).
  Time hw_time() const override {
    return clock_.hw_time(rx_arrival_ != Time::zero() ? rx_arrival_ : scheduler_.now());
  }

  // NicContext, for the QPs' data path.
  world::Scheduler& scheduler() override { return scheduler_; }
  recovery::Engine& recovery() override { return *engine_; }
  const DataPathConfig& data_path() const override { return config_.data_path; }
  DataPathCounters& counters() override { return counters_; }
  world::Ipv4 gid(size_t index) const override { return config_.gids.at(index); }
  const RateLimiterConfig& rate_limiter_config() const override { return config_.rate_limiter; }
  void wake(QueuePair& qp) override;
  void send_ack(QueuePair& qp, const wire::RoceHeaders& headers) override;
  void complete_sent(CompletionQueue& cq, const WorkCompletion& wc) override;
  void note_last_packet(QueuePair& qp, uint32_t psn) override;

 private:
  // Pushes the completions held for packets the port has taken (all of them when `all`).
  void release_sent_completions(bool all);
  void pump();
  QueuePair* next_ready();
  RateLimiter* limiter_of(QueuePair& qp);
  // Back on its class's ready list after a packet: at the front while its burst lasts.
  void requeue_after_send(QueuePair& qp);
  void transmit(world::PacketPtr packet);
  void on_transmitted();
  void receive(world::PacketPtr packet);
  void deliver(world::PacketPtr packet);
  // DCQCN: the notification point answers CE marks with CNPs; the reaction point sets the
  // QP's rate limiter from its rate.
  void notify_congestion(QueuePair& qp, const world::Packet& packet);
  void on_cnp(QueuePair& qp);
  void on_retransmission_timeout(QueuePair& qp) override;
  // A DCQCN rate decrease of the QP, as a CNP causes.
  void cut_rate(QueuePair& qp);
  // Sets the QP's limiter from its reaction point (its own or its group's).
  void apply_dcqcn(QueuePair& qp);
  // A reaction point with the limiter it paces and its next timer: one per QP (in the QP's
  // Scheduling) or one per group (dcqcn_reaction_groups).
  struct DcqcnSlot {
    std::unique_ptr<DcqcnReactionPoint>& rp;
    world::TimerId& timer;
    RateLimiter& limiter;
  };
  DcqcnSlot dcqcn_slot(QueuePair& qp);
  // The reaction point pacing `qp`, nullptr before its (or its group's) first CNP.
  DcqcnReactionPoint* reaction_point(QueuePair& qp);
  // Sets `slot`'s limiter from its rate and, unless one is pending, arms its timer for the next
  // change with `on_timer`.
  void apply_reaction(DcqcnSlot slot, world::TimerCallback on_timer);
  void apply_group_dcqcn(size_t index);

  world::Scheduler& scheduler_;
  DeviceConfig config_;
  HwClock clock_;
  MemoryRegistry memory_;
  uint32_t next_pd_ = 1;
  uint32_t next_qpn_ = 2;
  std::vector<std::unique_ptr<CompletionQueue>> cqs_;
  std::unordered_map<uint32_t, std::unique_ptr<QueuePair>> qps_;

  std::unique_ptr<recovery::Engine> engine_;
  DataPathCounters counters_;
  Time rx_arrival_;  // arrival of the packet being received; zero outside receive()
  world::PacketPort* port_ = nullptr;
  uint32_t in_port_ = 0;           // packets handed to the port that have not started transmission
  uint64_t port_handed_ = 0;       // packets handed to the port, ever
  uint64_t port_transmitted_ = 0;  // of them, transmitted (the port reports in order)
  struct HeldCompletion {
    CompletionQueue* cq;
    WorkCompletion wc;
    uint64_t packet;  // the port_handed_ number of the send's last packet
  };
  std::deque<HeldCompletion> held_completions_;  // complete_sends_at_transmit
  struct PendingDeparture {
    uint32_t qp_num;
    uint32_t psn;     // an RC request's last packet
    uint64_t packet;  // its port_handed_ number
  };
  std::deque<PendingDeparture> pending_departures_;  // complete_sends_at_transmit
  bool pumping_ = false;
  std::deque<world::PacketPtr> acks_;
  std::array<std::deque<QueuePair*>, 8> ready_;    // per priority class, round-robin
  std::optional<RateLimiterBank> class_limiters_;  // per-priority mode
  std::vector<bool> claimed_limiters_;             // by claim_limiter
  std::optional<ReceivePipeline> pipeline_;
  QpContextCache cache_;
  std::optional<ContextFetches> fetches_;  // set when context fetches overlap
  DcqcnNotificationPoint notification_point_;
  struct DcqcnGroup {
    std::unique_ptr<DcqcnReactionPoint> rp;
    world::TimerId timer;
    RateLimiter limiter;
  };
  // dcqcn_reaction_groups; empty: per-QP reaction points. Sized once: slots refer into it.
  std::vector<DcqcnGroup> dcqcn_groups_;
  DcqcnGroup* dcqcn_group(const QueuePair& qp);  // nullptr: per QP, or DCQCN off
};

}  // namespace bifrost::rnic
