#pragma once
// The receiver's software-ACK coalescing (A.1.2). Received WQEs wait here until one trigger
// fires: `wqes` WQEs or `bytes` bytes pending, a WQE with the hint bit (the sender's window is
// exhausted), an out-of-order reliable number (a loss to report at once), or the timer, which
// the connection arms when the first WQE is added. The ACK carries the timing of the newest
// WQE, the one whose receive completion is closest to the post time, so the receiver delay it
// reports is the smallest.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "bifrost/core/time.h"
#include "bifrost/transport/wire/soft_ack.h"

namespace bifrost::transport {

// span: the next SEND global number would not compress against the pending ones (2^32 rule).
enum class AckTrigger : uint8_t { wqes, bytes, hint, out_of_order, timer, span, count };

struct AckTriggerCounts {
  uint64_t by[static_cast<size_t>(AckTrigger::count)] = {};
  uint64_t operator[](AckTrigger t) const { return by[static_cast<size_t>(t)]; }
};

struct AckCoalescing {
  uint32_t wqes = 32;
  uint32_t bytes = 32 * 1024;
};

class AckBuilder {
 public:
  explicit AckBuilder(AckCoalescing coalescing);
  // New thresholds (a remote parameter), checked from the next add on; what is pending stays.
  void set_coalescing(AckCoalescing coalescing);

  // Whether `wqe` can join the pending ACK: a SEND entry must lie within 2^32 of the least
  // pending SEND global (the 4-byte compression); otherwise send the pending ACK first.
  bool fits(const AckedWqe& wqe) const;
  // Records a received WQE (which must fit) and returns the trigger that says the ACK must go
  // now, if any. `ce`: the WQE arrived CE-marked; the ACK then carries the ECN echo. A mark
  // does not trigger an ACK by itself: the sender learns of it within the usual coalescing
  // delay, which is what DCQCN's NP does too (at most one CNP per interval).
  std::optional<AckTrigger> add(const AckedWqe& wqe, uint32_t bytes, Time received_nic_time,
                                bool hint, bool out_of_order, bool ce = false);
  bool empty() const { return ack_.count == 0; }

  // The pending ACK, timed at `post_nic_time` (T3' on the NIC clock); clears the builder and
  // counts `trigger`.
  SoftAck take(uint32_t connection, Time post_nic_time, AckTrigger trigger);
  const AckTriggerCounts& triggers() const { return counts_; }

 private:
  AckCoalescing coalescing_;
  SoftAck ack_;
  uint64_t bytes_ = 0;
  Time newest_received_;
  bool has_send_ = false;
  uint64_t least_send_ = 0;
  uint64_t most_send_ = 0;
  AckTriggerCounts counts_;
};

}  // namespace bifrost::transport
