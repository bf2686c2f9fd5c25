#pragma once
// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015) as
// ConnectX NICs run it in hardware: the reaction point (RP) paces one QP, the notification
// point (NP) turns CE-marked arrivals into CNPs. Both are pure algorithms driven by explicit
// calls with times; the NIC owns the scheduler and asks next_timer() when to call back.
#include <cstdint>
#include <unordered_map>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::rnic {

// Reaction-point parameters. "mlx5" marks a ConnectX-4/5 firmware default (mlxconfig names in
// capitals, the same values the mlx5 driver exposes as ecn/roce_rp/<name>); "paper" a value
// from the DCQCN paper. Where the two differ the choice is said.
struct DcqcnConfig {
  // The QP never sends faster: the port rate. No default fits every NIC; 100 Gb/s is ours.
  Rate line_rate = Rate::Gbps(100);
  // mlx5 RPG_MIN_RATE = 1 Mb/s: the rate never drops below this.
  Rate min_rate = Rate::Mbps(1);
  // Alpha gain g. mlx5 DCE_TCP_G = 1019 keeps 1019/1024 of alpha per update, so g = 5/1024
  // (the paper uses 1/256).
  double g = 5.0 / 1024.0;
  // Alpha before the first CNP. Paper: 1. mlx5 INITIAL_ALPHA_VALUE = 1023, the largest 10-bit
  // fraction, i.e. the hardware's nearest value to 1; we keep the exact 1.
  double initial_alpha = 1.0;
  // Alpha decays by (1 - g) once per period without a CNP: mlx5 DCE_TCP_RTT = 1 us.
  Time alpha_update_period = Time::us(1);
  // mlx5 RATE_REDUCE_MONITOR_PERIOD = 4 us: at most one rate decrease per period; CNPs inside
  // it are folded into one decrease at its end.
  Time rate_reduce_monitor_period = Time::us(4);
  // Rate-increase timer T: mlx5 RPG_TIME_RESET = 300 us.
  Time increase_period = Time::us(300);
  // Rate-increase byte counter B: mlx5 RPG_BYTE_RESET = 32767 bytes.
  uint64_t increase_bytes = 32767;
  // Fast-recovery stages F. Paper: 5 (the QCN value); mlx5 RPG_THRESHOLD defaults to 1. We take
  // the paper's, which the fast-recovery analysis in the paper assumes.
  uint32_t fast_recovery_stages = 5;
  // mlx5 RPG_AI_RATE = 5 Mb/s: target-rate step per additive-increase event.
  Rate additive_increase = Rate::Mbps(5);
  // mlx5 RPG_HAI_RATE = 50 Mb/s: hyper-increase step, multiplied by the stage past F.
  Rate hyper_increase = Rate::Mbps(50);
};

// mlx5 MIN_TIME_BETWEEN_CNPS = 4 us on ConnectX-4/5 (some firmware lists 2 us); the paper
// sends at most one CNP per flow every 50 us.
inline constexpr Time kDcqcnMinTimeBetweenCnps = Time::us(4);

// The rate of one QP. Before its first CNP the QP is unlimited (line rate, no timers). On a
// decrease: Rt = Rc, Rc = Rc * (1 - alpha / 2), alpha = (1 - g) * alpha + g, and the increase
// timer, byte counter and stages restart. Each increase event (a timer period T or B bytes
// sent) counts a timer or byte stage; while both stages are <= F it is fast recovery, when
// both exceed F hyper increase (Rt += i * R_HAI, i = min stage - F), otherwise additive
// increase (Rt += R_AI); then Rc = (Rt + Rc) / 2. Rates stay within [min_rate, line_rate].
//
// Times must not go backwards; an earlier time is taken as the latest one seen. The state after
// a sequence of on_cnp / on_bytes_sent calls does not depend on how often advance() is called
// in between: every call first applies the expirations due up to its time, in time order.
class DcqcnReactionPoint {
 public:
  // Throws bifrost::Error if the configuration is impossible.
  explicit DcqcnReactionPoint(const DcqcnConfig& config = {});

  void on_cnp(Time now);
  void on_bytes_sent(Time now, uint64_t bytes);
  // Applies every timer expiration (deferred decrease, rate increase, alpha decay) up to `now`.
  void advance(Time now);

  Rate rate() const { return rc_; }
  Rate target_rate() const { return rt_; }
  // Alpha as of the latest time seen.
  double alpha() const;
  // When the next expiration that can change rate() is due; Time::max() if none (never
  // limited yet, or back at line rate with nothing pending).
  Time next_timer() const;

  const DcqcnConfig& config() const { return config_; }

 private:
  void decrease(Time at);
  void increase(bool by_timer);
  double alpha_at(Time t) const;
  bool idle_at_line_rate() const;

  DcqcnConfig config_;
  Rate rc_;                          // current rate
  Rate rt_;                          // target rate
  double alpha_base_ = 0;            // alpha at alpha_since_
  Time alpha_since_ = Time::zero();  // last alpha update by a decrease
  bool active_ = false;              // a CNP has arrived
  Time now_ = Time::zero();
  Time last_decrease_ = Time::zero();
  bool decrease_pending_ = false;  // a CNP inside the monitor period waits for its end
  Time next_increase_ = Time::max();
  uint64_t timer_stage_ = 0;
  uint64_t byte_stage_ = 0;
  uint64_t bytes_since_ = 0;
};

// What min_time_between_cnps counts: CNPs for each QP apart (the DCQCN paper's per-flow
// rule), or every CNP the port sends, whatever the QP. Which one ConnectX firmware does is not
// documented; with many QPs into one receiver the two differ by the number of QPs.
enum class CnpScope : uint8_t { per_qp, per_port };

// Decides which CE-marked packets become CNPs: at most one per min_time_between_cnps, per QP
// or per port.
class DcqcnNotificationPoint {
 public:
  // Throws bifrost::Error if the interval is negative.
  explicit DcqcnNotificationPoint(Time min_time_between_cnps = kDcqcnMinTimeBetweenCnps,
                                  CnpScope scope = CnpScope::per_qp);

  // A CE-marked packet for `qp` arrived at `now`; true if the NIC should send a CNP to the
  // sender of `qp` now.
  bool on_ce_packet(uint32_t qp, Time now);

 private:
  Time interval_;
  CnpScope scope_;
  std::unordered_map<uint32_t, Time> last_cnp_;  // per QP that ever saw CE (per port: key 0)
};

}  // namespace bifrost::rnic
