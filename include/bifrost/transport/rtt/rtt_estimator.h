#pragma once
// RTT samples and the smoothed estimate the retransmission timer and chunking use.
//
// Eq. (1) of the Bifröst paper: RTT = (T4 - T1) - (T3' - T2), where T1 is the send completion
// of the acknowledged WQE and T4 the receive completion of its ACK (both on the sender's NIC
// clock), and T3' - T2 the receiver's delay from that WQE's receive completion to posting the
// ACK, which the ACK carries. The receiver's delay never counts as network time.
#include <cstdint>

#include "bifrost/core/time.h"

namespace bifrost::transport {

// Eq. (1). A negative result (clock error larger than the RTT) is reported as zero.
Time rtt_sample(Time t1_send, Time t4_ack_received, Time receiver_delay);

class RttEstimator {
 public:
  void add(Time sample);  // RFC 6298 smoothing: srtt 1/8, rttvar 1/4

  bool has_sample() const { return samples_ > 0; }
  Time srtt() const { return srtt_; }
  Time rttvar() const { return rttvar_; }
  Time min_rtt() const { return min_; }
  Time latest() const { return latest_; }
  uint64_t samples() const { return samples_; }
  // max(floor, srtt + 4 rttvar); `floor` before any sample.
  Time rto(Time floor) const;

 private:
  Time srtt_;
  Time rttvar_;
  Time min_ = Time::max();
  Time latest_;
  uint64_t samples_ = 0;
};

}  // namespace bifrost::transport
