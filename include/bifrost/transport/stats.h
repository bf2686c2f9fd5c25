#pragma once
// Counters of one connection, for tests, tools and experiments.
#include <cstdint>

#include "bifrost/core/time.h"
#include "bifrost/transport/path_resync.h"

#include "bifrost/transport/reliability/ack_builder.h"

namespace bifrost::transport {

struct SenderStats {
  uint64_t messages_sent = 0;    // completed as delivered
  uint64_t messages_failed = 0;  // messages and one-sided operations the connection gave up
  uint64_t writes_done = 0;      // one-sided WRITEs completed (software_uc: with the peer's READs')
  uint64_t reads_done = 0;       // one-sided READs completed
  uint64_t one_sided_refused = 0;  // completed with remote_access_error
  uint64_t wqes_posted = 0;        // data WQEs, first transmissions and retransmissions
  uint64_t bytes_posted = 0;
  uint64_t chunks = 0;              // WRITE chunks of large messages
  uint64_t retransmitted_wqes = 0;  // SENDs reposted and WRITE-chunk pieces
  uint64_t losses_detected = 0;     // WQEs declared lost from a gap in the ACKs
  uint64_t timeouts = 0;
  // WQEs a timeout left to their ACKs because they left the NIC less than an RTO before it
  // (selective timeout retransmission; go-back-all would have resent them too).
  uint64_t timeout_spared = 0;
  uint64_t tail_probes = 0;  // tails declared lost after 2 srtt without their ACK
  uint64_t acks_received = 0;
  uint64_t acks_malformed = 0;
  uint64_t stale_acks = 0;  // entries for WQEs already done
  // WQEs acknowledged by an ACK's cumulative part alone: their own entry was in an ACK that was
  // lost (or is late), and the in-order rule would have resent them.
  uint64_t cumulative_acked = 0;
  uint64_t rtt_samples = 0;
  uint64_t rtt_samples_held_off = 0;  // kept from the CC after a rate change (config above)
  uint64_t ecn_echoes = 0;            // ACKs that said some WQE they acknowledge was CE-marked
  uint64_t pacing_updates = 0;        // rates (or "unlimited") put on a QP's NIC rate limiter
  uint64_t failovers = 0;             // primary QP replaced by a backup
  // Verdicts an ACK proved wrong (software_uc): WQEs declared lost whose own transmission was
  // acknowledged later (queued, not lost); the timeouts with at least one such WQE; and the
  // failovers after which an ACK arrived for something the given-up QP had carried (its path
  // delivered: the QP was queued, not dead).
  uint64_t verdicts_refuted = 0;
  uint64_t spurious_timeouts = 0;
  uint64_t failovers_refuted = 0;
  // The stall of the last failover: from giving up the primary QP (a backup promoted, or
  // none left and a reconnect under way) to the first acknowledgement after it. It includes
  // the QP transition the device models (rnic::QpTransitionCosts): ~60 us to activate a
  // ready backup, ~5 ms to recover a QP when there is none.
  Time last_failover_gap;
  Time last_failover_at;  // when the primary was last given up (zero: never)
};

// Connection management: background reconnects of QPs (A.3, path_resync.h) and remote
// parameters.
struct ConnectionStats : ResyncStats {
  // Remote parameters this side asked the peer to set...
  uint64_t parameter_requests_sent = 0;  // parameter_set messages, first and repeated
  uint64_t parameters_applied = 0;
  uint64_t parameters_refused = 0;    // the value would have made the peer's config invalid
  uint64_t parameters_timed_out = 0;  // no ack after reconnect_attempts requests
  uint64_t stale_parameter_acks = 0;  // repeats of acks already used, acks after a time-out
  // ... and those the peer asked this side to set.
  uint64_t peer_parameters_applied = 0;
  uint64_t peer_parameters_refused = 0;
  uint64_t parameter_acks_sent = 0;          // including repeats for a repeated request
  uint64_t parameter_requests_repeated = 0;  // answered again, not applied again
  uint64_t stale_parameter_requests = 0;     // older than the newest answered: ignored
};

struct ReceiverStats {
  uint64_t messages_delivered = 0;
  uint64_t bytes_delivered = 0;
  uint64_t wqes_received = 0;
  uint64_t duplicates = 0;            // already-delivered WQEs (acknowledged again, not delivered)
  uint64_t malformed = 0;             // bad header, unknown message, out of bounds: dropped
  uint64_t out_of_window = 0;         // global numbers implausibly far ahead: dropped
  uint64_t send_holes_forgotten = 0;  // abandoned SEND numbers the window slid past
  uint64_t pieces_placed = 0;         // retransmitted units copied into place
  uint64_t late_pieces = 0;           // retransmitted units for delivered messages: not copied
  uint64_t acks_sent = 0;
  uint64_t ce_marked_wqes = 0;   // WQEs received CE-marked (echoed in their ACK)
  uint64_t grants_deferred = 0;  // WRITE requests that waited for arena space
  // One-sided operations (software_uc: the target's software sees them).
  uint64_t writes_placed = 0;      // the peer's one-sided WRITEs complete in our memory
  uint64_t reads_served = 0;       // the peer's READs answered with their data
  uint64_t one_sided_refused = 0;  // notices and reads our memory did not grant
  uint64_t early_writes = 0;       // WRITE chunks before their notice: not acknowledged
  AckTriggerCounts ack_triggers;
};

}  // namespace bifrost::transport
