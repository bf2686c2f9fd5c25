#pragma once
// DCQCN as a software congestion control of the transport: the NIC's reaction point
// (rnic::DcqcnReactionPoint, the same algorithm and mlx5 defaults) driven by software ACKs
// instead of CNPs. An ACK whose ECN echo is set (the receiver saw a CE-marked WQE) acts as a
// CNP, at most one per min_time_between_cnps as the NIC's notification point sends them; the
// rate it yields is applied by the connection to its primary QP's NIC rate limiter.
//
// Byte counter: the RP's counter B counts *acknowledged* bytes, not posted ones. Posting is not
// sending: a paced QP holds its posted WQEs in the NIC until the limiter lets them go, so
// counting at post would run the counter ahead of the wire; acknowledged bytes are bytes that
// did leave, one RTT late (B = 32 KB is a few microseconds of data at any useful rate).
// Retransmissions count when acknowledged, like any other WQE.
//
// Window: twice the bytes the current rate sends in one RTT (the larger of the base RTT and
// the least RTT measured), at least one mss. DCQCN itself has no window, but the reliability
// layer wants one: without it, a rate cut to a few Gb/s would leave max_outstanding_wqes full
// chunks queued in the NIC behind the limiter, whose ACKs arrive late enough to fire the RTO
// and tail probes spuriously; bounded by the rate, in-flight bytes (and chunk sizes, which
// follow the window) shrink with it and ACKs keep their RTT cadence.
//
// Losses and timeouts leave the rate alone, as the NIC's DCQCN does: they are repaired by the
// reliability layer. Timers (alpha decay, rate increase) are advanced on every event; between
// events nothing is sent that an ACK would not report, so an increase due meanwhile is applied
// at the next ACK.
#include <cstdint>
#include <optional>

#include "bifrost/rnic/cc/dcqcn.h"
#include "bifrost/transport/cc/congestion_control.h"

namespace bifrost::transport {

struct DcqcnParams {
  rnic::DcqcnConfig rp;  // rp.line_rate: the connection's line rate
  Time min_time_between_cnps = rnic::kDcqcnMinTimeBetweenCnps;
  Time base_rtt = Time::us(50);
  uint32_t mss = 4096;

  // Throws Error for an impossible reaction point, a negative CNP interval, or a
  // non-positive base RTT or mss.
  void validate() const;
};

// mlx5 defaults with the path's line rate, base RTT and unit size.
DcqcnParams dcqcn_params_for(const CcParams& params);

class Dcqcn final : public CongestionControl {
 public:
  // Throws bifrost::Error for an impossible configuration.
  explicit Dcqcn(const DcqcnParams& params);
  std::string_view name() const override { return "dcqcn"; }
  void on_ack(const AckEvent& event) override;
  void on_loss(Time now) override { rp_.advance(now); }
  void on_timeout(Time now) override { rp_.advance(now); }
  uint64_t window_bytes() const override;
  // The RP's rate while below line rate; nullopt at line rate (before the first CNP, or once
  // recovered), when the QP is not limited at all.
  std::optional<Rate> pacing_rate() const override;

  // ECN-echo ACKs that acted as CNPs (the others fell inside min_time_between_cnps).
  uint64_t cnps() const { return cnps_; }
  const rnic::DcqcnReactionPoint& reaction_point() const { return rp_; }

 private:
  DcqcnParams params_;
  rnic::DcqcnReactionPoint rp_;
  rnic::DcqcnNotificationPoint np_;
  Time min_rtt_ = Time::max();
  uint64_t cnps_ = 0;
};

}  // namespace bifrost::transport
