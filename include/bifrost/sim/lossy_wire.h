#pragma once
// A point-to-point wire between two packet ports with random loss, duplication and
// reordering: the network of NIC-level tests, benchmarks and the single-QP experiments, where
// a switch would only add events. Each direction serializes at `rate` (one packet at a time,
// so the sender's transmit callback paces it) and delivers after `delay`; a reordered packet
// is held back by an extra random delay up to `reorder_delay`.
#include <cstdint>

#include "bifrost/core/inplace_function.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/rng.h"
#include "bifrost/world/packet_port.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::sim {

// Decides to drop a packet regardless of the random loss (tests drop chosen PSNs with it).
using DropFilter = InplaceFunction<bool(const world::Packet&), 32>;

struct LossyWireConfig {
  Rate rate = Rate::Gbps(100);
  Time delay = Time::us(1);  // one-way propagation
  double loss = 0;           // probability per packet, each direction
  double duplicate = 0;
  double reorder = 0;
  Time reorder_delay = Time::us(2);
  // Probability that an ECN-capable packet arrives CE-marked, as if a switch queue marked it.
  double ce_mark = 0;
  uint64_t seed = 1;
  // Bytes each frame costs on the wire beyond the frame without FCS: 0 charges the metered
  // frame only (what the rate limiters count); 24 is Ethernet's FCS, preamble, start delimiter
  // and inter-frame gap, which a sender that times batches against the line must see.
  uint32_t framing_bytes = 0;
};

struct LossyWireCounters {
  uint64_t sent = 0;
  uint64_t lost = 0;  // random loss and filter drops
  uint64_t duplicated = 0;
  uint64_t reordered = 0;
  uint64_t ce_marked = 0;
};

class LossyWire {
 public:
  // Throws Error for probabilities outside [0, 1) or a non-positive rate.
  LossyWire(world::Scheduler& scheduler, const LossyWireConfig& config);
  LossyWire(const LossyWire&) = delete;
  LossyWire& operator=(const LossyWire&) = delete;

  // The two ends: what end(0) sends arrives at end(1) and the other way round.
  world::PacketPort& end(int side);
  void set_drop_filter(int side, DropFilter filter);
  // The random loss of what end `side` sends, from now on (config.loss until set): one
  // direction can be lossless while the other loses. Throws Error outside [0, 1).
  void set_loss(int side, double loss);
  // As a PFC pause that end `side` received: it starts no packet before `until` (one already
  // on the wire finishes), so its NIC's port queue fills and the NIC stops.
  void pause(int side, Time until);
  const LossyWireCounters& counters(int side) const;

 private:
  class End final : public world::PacketPort {
   public:
    void send(world::PacketPtr packet) override;
    void arrive(world::PacketPtr packet) { deliver(std::move(packet)); }
    void started() { transmitted(); }

    LossyWire* wire = nullptr;
    End* peer = nullptr;
    Time busy_until = Time::zero();
    Time paused_until = Time::zero();
    DropFilter filter;
    double loss = 0;
    LossyWireCounters counters;
    RandomStream random{1};
  };

  void carry(End& from, world::PacketPtr packet, Time arrival);

  world::Scheduler& scheduler_;
  LossyWireConfig config_;
  End ends_[2];
};

}  // namespace bifrost::sim
