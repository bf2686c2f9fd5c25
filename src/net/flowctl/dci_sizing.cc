#include "bifrost/core/error.h"
#include "bifrost/net/flowctl/dci_config.h"

namespace bifrost::net {

Bytes dci_delta(const DciLinkParams& link) {
  if (link.rate.bits_per_second() <= 0 || link.propagation < Time::zero() ||
      link.ingress_latency < Time::zero() || link.jitter < Time::zero() ||
      link.max_frame_bytes == 0) {
    throw Error("DCI sizing needs a positive rate and frame size and non-negative delays");
  }
  const Time frame =
      serialization_time(Bytes(uint64_t{link.max_frame_bytes} + link.overhead_bytes), link.rate);
  const Time pause =
      serialization_time(Bytes(uint64_t{kPauseFrameBytes} + link.overhead_bytes), link.rate);
  const Time committed =
      (link.propagation + link.jitter) * 2 + link.ingress_latency + pause + frame * 2;
  return bytes_in(committed, link.rate) + Bytes(link.max_frame_bytes);
}

Time dci_pause_guard(const DciLinkParams& link) {
  return serialization_time(Bytes(uint64_t{link.max_frame_bytes} + link.overhead_bytes),
                            link.rate) +
         link.jitter;
}

Bytes dci_min_buffer(const DciLinkParams& link, Time slot, uint32_t leak_every) {
  const Bytes per_slot = bytes_in(slot, link.rate);
  return dci_delta(link) + Bytes(per_slot.count() * 2) +
         Bytes(uint64_t{leak_every} * link.max_frame_bytes);
}

}  // namespace bifrost::net
