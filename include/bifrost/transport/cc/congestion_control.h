#pragma once
// The congestion-control plug-in point of a connection (or of one path of it). It sees what
// the reliability layer learns (acknowledged bytes, RTT samples per WQE or per batch, ECN,
// losses, timeouts) and answers with a window in bytes and, optionally, a pacing rate that the
// connection applies to the QP's NIC rate limiter. A new algorithm is one class, a CcKind and
// a parameter block in cc/cc_config.h, and one case in make_congestion_control.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::transport {

struct AckEvent {
  Time now;
  uint64_t acked_bytes = 0;
  std::optional<Time> rtt;  // one exact sample (eq. 1) when the ACK carried timing
  bool ecn = false;         // the acknowledged data was CE-marked
};

struct CcParams {
  Time base_rtt = Time::us(50);
  uint64_t bdp_bytes = 625'000;      // line rate * base RTT
  uint32_t mss = 4096;               // the smallest useful window step (the unit size)
  Rate line_rate = Rate::Gbps(100);  // the configured link rate (TransportConfig::line_rate_bps)
  uint32_t mtu = 4096;               // the path MTU (TransportConfig::mtu)
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  virtual std::string_view name() const = 0;

  virtual void on_ack(const AckEvent& event) = 0;
  // Loss detected by the reliability layer (a gap, an FNACK, a failed QP).
  virtual void on_loss(Time now) = 0;
  // A retransmission timeout fired.
  virtual void on_timeout(Time now) = 0;

  // Bytes the connection may have in flight.
  virtual uint64_t window_bytes() const = 0;
  // A pacing rate for the NIC rate limiter, if the algorithm sets one; nullopt: not limited.
  // The connection applies it to its primary QP whenever it changes.
  virtual std::optional<Rate> pacing_rate() const { return std::nullopt; }
};

struct CcConfig;  // cc/cc_config.h

// The algorithm `config` names, with its block's parameters resolved for `path`
// (CcConfig::swift_params and its siblings). Throws Error for impossible parameters.
std::unique_ptr<CongestionControl> make_congestion_control(const CcConfig& config,
                                                           const CcParams& path);

}  // namespace bifrost::transport
