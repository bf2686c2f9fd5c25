#pragma once
// QPs a connection replaced (a reconnect, a resync): put in error at once, which flushes their
// queues into the CQ, and destroyed only after `keep` newer ones were retired, so no late
// completion of theirs can name a QP number the device has given to a fresh QP meanwhile.
#include <cstddef>
#include <deque>

#include "bifrost/rnic/queue_pair.h"

namespace bifrost::transport {

class Endpoint;

class RetiredQps {
 public:
  explicit RetiredQps(size_t keep = 4) : keep_(keep) {}
  // Puts `qp` in error (if it is not) and destroys the oldest retired QP beyond `keep`.
  void retire(Endpoint& endpoint, rnic::QueuePair& qp);

 private:
  size_t keep_;
  std::deque<rnic::QueuePair*> retired_;  // oldest first
};

}  // namespace bifrost::transport
