#pragma once
// Theorem 1's claims checked from ground truth on a DciBench, not from the algorithm's own
// variables: after every slot (1 ps after the ingress's timer),
//   - F >= the bytes in flight on the long link (started by the upstream, not yet delivered, as
//     the link counts them) - k x S: F bounds what is coming, up to the leaks leak handling may
//     still owe;
//   - the port's peak occupancy stays within H + k x S and nothing is dropped;
//   - the sink-facing egress is never idle while it is ready (the upstream is backlogged and
//     nothing but DCI pauses it): every ready period sends its length in wire bytes minus two
//     frames (one in flight at each end) and one frame per pause sent in the period (the
//     early close of a paused slot's window).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "bifrost/net/flowctl/dci_ingress.h"
#include "net/dci_fixture.h"

namespace bifrost::net::testing {

struct OracleVerdict {
  int64_t worst_uncounted = std::numeric_limits<int64_t>::min();  // max(in flight - F)
  int64_t slack = 0;                                              // k x S
  uint64_t uncounted_slots = 0;  // slots with in flight - F > k x S
  int64_t peak = 0;
  int64_t limit = 0;  // H + k x S
  uint64_t drops = 0;
  uint64_t dry_periods = 0;  // ready periods in which the egress idled
  uint64_t ready_periods = 0;
  uint64_t leak_found = 0;  // bytes leak handling found (DciPriorityCounters::leak_deducted)

  bool holds() const {
    return uncounted_slots == 0 && peak <= limit && drops == 0 && dry_periods == 0;
  }
};

class DciOracle {
 public:
  // `k` is the leak headroom's k (k x S); the verdict uses the ingress's H.
  DciOracle(DciBench& bench, const DciIngress& ingress, Time slot, uint32_t k)
      : bench_(bench), ingress_(ingress), slot_(slot) {
    verdict_.slack = int64_t{k} * kMaxFrame;
    verdict_.limit = static_cast<int64_t>(ingress.target().count()) + verdict_.slack;
    bench_.net.kernel.after(slot_ + Time::ps(1), [this] { check(); });
  }

  // For random_drain's on_ready: `before` at the start of a ready period, then at its end.
  void on_ready(Time start, Time end, bool before) {
    if (before) {
      period_start_wire_ = sink_wire_bytes();
      period_start_pauses_ = ingress_.counters(kDciPrio).pauses;
      return;
    }
    // The first bytes reach the sink after the one-way delay and the switch latency.
    if (start < bench_.one_way + slot_ * 2) return;
    ++verdict_.ready_periods;
    const int64_t can = static_cast<int64_t>(bytes_in(end - start, bench_.sink_rate).count());
    const int64_t did = sink_wire_bytes() - period_start_wire_;
    // Two frames in flight at the ends of the period, and one per pause sent in it: a paused
    // slot's window closes one frame time early (docs/net.md, "Slack of Theorem 1").
    const int64_t frame = kMaxFrame + bench_.sink_link().a_to_b().overhead_bytes();
    const auto pauses =
        static_cast<int64_t>(ingress_.counters(kDciPrio).pauses - period_start_pauses_);
    if (did + (2 + pauses) * frame < can) ++verdict_.dry_periods;
  }

  OracleVerdict verdict() const {
    OracleVerdict v = verdict_;
    v.peak = static_cast<int64_t>(bench_.sw.buffer().peak_headroom(0, kDciPrio).count());
    v.drops = bench_.sw.counters().drops[DropReason::kHeadroomExceeded];  // the DCI class
    v.leak_found = ingress_.counters(kDciPrio).leak_deducted;
    return v;
  }

 private:
  void check() {
    const ChannelCounters& c = bench_.long_link().a_to_b().counters();
    const auto in_flight = static_cast<int64_t>(c.data_bytes_sent - c.data_bytes_delivered);
    const int64_t uncounted = in_flight - ingress_.virtual_incoming(kDciPrio);
    verdict_.worst_uncounted = std::max(verdict_.worst_uncounted, uncounted);
    if (uncounted > verdict_.slack) ++verdict_.uncounted_slots;
    bench_.net.kernel.after(slot_, [this] { check(); });
  }

  // Frame bytes plus each frame's wire overhead, as the sink link counts them.
  int64_t sink_wire_bytes() const {
    const Channel& ch = bench_.sink_link().a_to_b();
    const ChannelCounters& c = ch.counters();
    return static_cast<int64_t>(c.data_bytes_sent + c.data_frames_sent * ch.overhead_bytes());
  }

  DciBench& bench_;
  const DciIngress& ingress_;
  Time slot_;
  OracleVerdict verdict_;
  int64_t period_start_wire_ = 0;
  uint64_t period_start_pauses_ = 0;
};

}  // namespace bifrost::net::testing
