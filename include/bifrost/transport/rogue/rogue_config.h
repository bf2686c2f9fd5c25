#pragma once
// How one RoGUE connection behaves (Le et al., SoCC '18). Defaults are the paper's where it
// gives one (§3, §4) and ours, named, where it does not (docs/transport.md, "RoGUE").
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/transport/cc/vegas.h"

namespace bifrost::transport::rogue {

// RoGUE runs over one RC QP (the NIC retransmits, software controls congestion and replaces a
// failed QP by its shadow) or one UC QP (nothing is retransmitted: losses only slow it down).
enum class QpType : uint8_t { rc, uc };

// RoGUE's segment for a line rate (§3.1): 64 KB at 10 Gb/s and below, 256 KB at 100 Gb/s and
// above; the paper gives nothing between, so 128 KB there is ours. "KB" read as KiB: the
// sizes come from ib_read_bw runs, whose sizes are powers of two.
uint64_t default_segment_bytes(Rate line_rate);
// The bound on one rate change: the paper's 1 Gb/s at 10 Gb/s, scaled with the line rate
// (line / 10) above it: ours.
Rate default_rate_step(Rate line_rate);

// The host CPU model's costs as the paper implies them (RogueConfig::signal_cost,
// clock_read_cost); §5.3: RoGUE's 1 MB READ takes 1040 us against RoCE's 944 us, 16 batches of
// 64 KB, 6 us a batch.
//   signal: handling one batch signal RoGUE asked for (a signal the application asked for is
//     its own, paid under RoCE too, and not charged). The paper gives no per-signal time; 5 us
//     is Fig. 2's: signalling every 64 KB verb at 10 Gb/s (19,000 a second) takes under 10% of
//     a core, about 5.2 us a signal (its 16 KB verbs: 30%, about 3.9 us).
//   clock read: the NIC clock read before each batch (t_enq), a PCIe read: §5.4's "about 1 us"
//     per PCI transaction (DeviceConfig::clock_query_cost's default too).
// Together 6 us a batch, §5.3's 96 us over 16 batches.
inline constexpr Time kPaperSignalCost = Time::us(5);
inline constexpr Time kPaperClockReadCost = Time::us(1);

struct RogueConfig {
  QpType qp_type = QpType::rc;
  Rate line_rate = Rate::Gbps(10);
  uint32_t mtu = 2048;  // perftest's on ConnectX-3 Pro (cx3pro profile)

  // Large verbs are cut into segments; one signal per batch of bytes (the application's own
  // signals close a batch earlier). 0: default_segment_bytes(line_rate); batch 0: the segment.
  uint64_t segment_bytes = 0;
  uint64_t batch_bytes = 0;
  // Batches kept enqueued while the application has data, whatever the window (§3.1).
  uint32_t min_batches = 2;

  // Vegas (cc/vegas.h): its packet_bytes, line_rate and rate_step are set from mtu, line_rate
  // and rate_step here.
  VegasParams vegas{};
  Rate rate_step{};  // 0: default_rate_step(line_rate)
  // Pace through the QP's NIC rate limiter at cwnd / base RTT (§3.3); false: the window only.
  bool pace = true;
  // After a new rate limit, RTT samples are held off until this many more bytes have left
  // the limiter (§3.3: H = 160KB, read as 160,000 bytes, the limiter's own change delay).
  uint64_t holdoff_bytes = 160'000;

  // RC: no batch's RTT sample below the least sample of a batch that found the NIC idle
  // (rtt/rogue_rc_estimator.h; ours, against the estimator's absorbing drift to zero). Off by
  // default, the estimator exactly as §3.3 writes it: on, the 40 Gb/s parking lot of
  // experiments/rogue-convergence got less fair (Jain 0.30 against 0.61).
  bool rc_idle_start_floor = false;
  // RC: cut the estimator's chain every `rc_anchor_every` batches (0: never, §3.3 as written).
  // The k-th batch since the last one posted with none outstanding waits until the outstanding
  // batches complete and the limiter has regained its burst credit, so the NIC is known to
  // start it when it is posted and its sample has no chained term; no sample goes below the
  // least such sample not held off (rtt/rogue_rc_estimator.h; ours, against the chain's drift
  // up and down, issue 24). Costs the NIC about one RTT idle per k batches. Replaces
  // rc_idle_start_floor when set. Off by default, the paper's estimator; 2 with rate_basis =
  // current_rtt and sample_applied_rate was the fairest in issue 24's reruns
  // (docs/transport.md, "Anchoring the RC chain").
  uint32_t rc_anchor_every = 0;
  // RC: B_sig is divided by the rate the limiter applied to the batch's bytes (a change lands
  // `change_delay` bytes after it is asked for, rogue/applied_rate.h), §3.3's "current applied
  // rate-limit", rather than by the limit asked for when the batch was enqueued. Off by default
  // (the estimator as it was); with Vegas's rate_basis = current_rtt it must be on: the rate then
  // falls as samples grow, and a cut charged at the old rate makes the next sample grow, so
  // rates and samples run away together (issue 24, experiments/rogue-convergence).
  bool sample_applied_rate = false;

  // Host CPU time (host_cpu.h), zero: off. It delays the next post on the connection; what
  // the NIC timestamps is unchanged. The paper blames these two for its READ's +10% at 1 MB
  // (§5.3): kPaperSignalCost and kPaperClockReadCost below turn the model on. Off by default:
  // on, experiments/rogue-incast-estimate's 8 -> 1 incast (Fig. 10) lost its fairness (p10
  // 1.20 -> 0.74 Gb/s, Jain 1.000 -> 0.964): the cost moves the enqueue reads that anchor the
  // RC samples, two flows keep a sane base RTT and are paced at cwnd / base RTT while the
  // others' drifted to ~0 and run unlimited (docs/transport.md); the real runtime pays its own
  // costs and keeps both at zero (tools/bifrost-perf).
  Time signal_cost = Time::zero();
  Time clock_read_cost = Time::zero();

  // An evaluation knob (Fig. 8): every RTT sample gets uniform noise on [0, rtt_noise] added
  // before the window sees it, as inaccurate timestamps would (0: none).
  Time rtt_noise = Time::zero();

  // UC: when every outstanding RTT sample is this late, the window goes back to its initial
  // size and only a probe goes until a sample arrives (§3.4; the paper gives no value: ours).
  Time uc_sample_timeout = Time::ms(1);

  // RC: the application's QP timeout (4.096 us * 2^timeout) and RoGUE's retry count of one
  // (§3.5); a shadow QP per active QP takes over when the NIC gives up.
  uint8_t rc_timeout = 14;
  uint8_t rc_retry_cnt = 1;
  bool shadow_qp = true;
  // The failed QP's resync and the takeover notice are repeated this often, this many times
  // (path_resync.h; Bifröst's reconnect defaults).
  Time resync_interval = Time::ms(1);
  uint32_t resync_attempts = 10;

  // The receive side is RoGUE's library: it keeps `receive_slots` receives posted, each of
  // `max_send_bytes` (a SEND is never cut into segments: it must land in one receive).
  uint32_t receive_slots = 256;
  uint64_t max_send_bytes = 64 * 1024;
  // Application verbs up to 2 GB (2^31 bytes), as RDMA allows.
  uint64_t max_verb_bytes = uint64_t{1} << 31;

  uint64_t segment() const;
  uint64_t batch() const;
  // The Vegas parameters in force (packet size, line rate and step filled in).
  VegasParams vegas_params() const;
  // Throws Error naming the first inconsistent value.
  void validate() const;
};

}  // namespace bifrost::transport::rogue
