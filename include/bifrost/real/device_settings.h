#pragma once
// The soft RNIC's settings that differ in the real world from the simulator's defaults, in one
// place for every program that puts a Device on a UdpPort.
#include "bifrost/rnic/device.h"

namespace bifrost::real {

inline void apply_real_world_settings(rnic::DeviceConfig& config) {
  // Enough packets queued in the port for sendmmsg (and GSO) to batch.
  config.port_queue_packets = 64;
  // A send completes when the kernel took its last datagram, not when it joined that queue.
  config.complete_sends_at_transmit = true;
  // Payloads go from the memory region to the kernel without a copy in between.
  config.data_path.zero_copy_transmit = true;
  // A paced QP waits for an event-loop timer, which fires tens of microseconds late under
  // load, where a hardware limiter is exact; with the simulator's one-packet burst every late
  // wake-up is lost for good and the QP runs far below its limit (RoGUE over loopback: 0.5 of
  // 1.4 Gb/s). 64 KiB of credit gives back up to ~50 us of lateness at 10 Gb/s.
  config.rate_limiter.burst = Bytes(64 * 1024);
}

}  // namespace bifrost::real
