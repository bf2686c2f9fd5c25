#pragma once
// The last WQEs a sender declared lost, kept after they leave its window so that a late ACK of
// one of them can still be read. Every transmission has its own global number (A.1.1: "such
// that ACK information (and timestamp information carried in ACKs) is not ambiguous"), so the
// late ACK of a WQE declared lost names that very transmission: the verdict was wrong (the WQE
// was queued, not lost), the ACK is an exact RTT sample of the queue that misled it, and the
// QP that carried it evidently delivers.
//
// A ring of the newest `capacity` verdicts; memory is taken at the first verdict, not before
// (a sender that never loses anything pays nothing).
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/core/time.h"

namespace bifrost::transport {

struct LostVerdict {
  uint64_t global = 0;     // the transmission declared lost (0: an empty slot)
  Time t1;                 // its send completion's NIC timestamp (eq. (1))
  uint64_t posted_at = 0;  // bytes the connection had posted before it
  uint32_t qp_num = 0;     // the QP that carried it
  uint64_t timeout = 0;    // the sender's timeout that declared it (its count), 0: not a timeout
};

class VerdictLedger {
 public:
  explicit VerdictLedger(uint32_t capacity = 64) : capacity_(capacity) {}

  void add(const LostVerdict& verdict) {
    if (ring_.empty()) ring_.resize(capacity_);
    ring_[next_] = verdict;
    next_ = (next_ + 1) % capacity_;
  }

  // The verdict on `global`, removed (a second ACK of the same transmission finds nothing).
  std::optional<LostVerdict> take(uint64_t global) {
    for (LostVerdict& v : ring_) {
      if (v.global != global) continue;
      const LostVerdict found = v;
      v.global = 0;
      return found;
    }
    return std::nullopt;
  }

 private:
  uint32_t capacity_;
  uint32_t next_ = 0;
  std::vector<LostVerdict> ring_;
};

}  // namespace bifrost::transport
