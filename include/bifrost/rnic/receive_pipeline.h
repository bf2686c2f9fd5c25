#pragma once
// The NIC's finite receive pipeline: a FIFO server in front of a receive buffer. A packet of L
// bytes admitted at `now` starts when the packet ahead of it has finished and takes
//   per_packet + serialization_time(L, service_rate) + extra_service.
// Its bytes occupy the buffer from `now` until it finishes. A packet that would push the
// occupancy past the buffer is dropped and counted.
//
// `extra_service` is a stall that blocks the whole pipeline for one packet, as SRNIC's bitmap
// access in host memory over PCIe (1.2-1.4 us): later packets queue behind it, so a stall at
// line rate builds a backlog of the bytes that arrive meanwhile and a small buffer drops them.
//
// Times passed to admit() and occupancy() must not decrease. Finish times live in a ring that
// grows to the peak backlog and then allocates nothing.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::rnic {

struct ReceivePipelineConfig {
  // Payload processing rate, usually a little above line rate.
  Rate service_rate = Rate::Gbps(100);
  // Fixed processing time of every packet (header parsing, context look-up).
  Time per_packet = Time::zero();
  // Receive buffer: bytes of admitted packets still being processed.
  Bytes buffer = Bytes::KiB(256);
};

class ReceivePipeline {
 public:
  // Throws Error for a non-positive service rate, a negative per-packet time or an empty buffer.
  explicit ReceivePipeline(ReceivePipelineConfig config);

  // When this packet finishes processing, or nullopt if it does not fit in the buffer (it is
  // dropped and counted; a dropped packet's stall never happens). A negative extra_service is
  // treated as zero. The packet starts no earlier than `ready_at` (its QP context arrives
  // then): the pipeline idles until it, and the packets behind wait.
  std::optional<Time> admit(Time now, uint32_t bytes, Time extra_service = Time::zero(),
                            Time ready_at = Time::zero());

  // Bytes of admitted packets that have not finished processing at `now`.
  Bytes occupancy(Time now);
  // When the last admitted packet finishes (the pipeline is idle from then on).
  Time busy_until() const { return busy_until_; }
  const ReceivePipelineConfig& config() const { return config_; }

  uint64_t admitted() const { return admitted_; }
  uint64_t dropped() const { return dropped_; }
  Bytes dropped_bytes() const { return dropped_bytes_; }
  // Admitted packets that carried a stall, and the sum of their stalls.
  uint64_t stalls() const { return stalls_; }
  Time total_stall() const { return total_stall_; }
  // Highest occupancy right after an admission.
  Bytes max_occupancy() const { return max_occupancy_; }

 private:
  struct InService {
    Time finish;
    uint32_t bytes;
  };

  void retire(Time now);  // pops packets that have finished by `now`

  ReceivePipelineConfig config_;
  // Packets not yet finished, oldest first, in a power-of-two ring that doubles when full.
  std::vector<InService> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  Bytes occupancy_{0};
  Time busy_until_;
  uint64_t admitted_ = 0;
  uint64_t dropped_ = 0;
  Bytes dropped_bytes_{0};
  uint64_t stalls_ = 0;
  Time total_stall_;
  Bytes max_occupancy_{0};
};

}  // namespace bifrost::rnic
