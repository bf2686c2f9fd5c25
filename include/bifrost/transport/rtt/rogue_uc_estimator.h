#pragma once
// RoGUE's RTT per batch over UC (§3.4). UC has no ACKs: the last verb of a batch carries an
// immediate that asks the receiver library for an echo, a zero-length WRITE_WITH_IMM carrying
// T_response = t_rep - t_imm (the receiver's own delay) and which batch it answers
// (wire/rogue_imm.h). A UC send completion only says the verb left, so the previous batch's
// last verb leaving (t_sig) is when this batch's first byte could leave:
//   t_start_i = max(t_enq_i, t_sig_{i-1})
//   RTT_i     = t_comp_i - t_start_i - T_response_i - B_sig_i / rate_limit_i
// (t_comp: the echo's receive completion; batch_serialization as for RC). The first batch, or
// one whose predecessor's t_sig is unknown, starts at its t_enq. A negative result is zero.
//
// Loss: an echo for batch j arriving while an earlier batch i < j is still outstanding means
// i was lost (UC keeps order on one path). Each such batch is reported once, as a count in the
// answer to the echo that showed it, and forgotten: an echo that turns up for it later (or a
// duplicate echo) matches nothing and is ignored. The caller applies one decrease per loss and
// runs the all-lost timeout with outstanding() and abandon_outstanding().
//
// Batches are numbered 0, 1, 2, ...; an echo carries only the low `sequence_bits` bits. The
// outstanding batches are always a contiguous run (an echo removes everything up to it), so a
// wire number names one of them exactly while fewer than 2^bits are outstanding, which
// on_enqueue enforces. (An echo delayed past 2^bits newer batches would be taken for a newer
// one: with RoGUE's few batches in flight that needs hundreds of batch times.)
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "bifrost/transport/rtt/rogue_batch.h"

namespace bifrost::transport {

struct RogueUcEcho {
  std::optional<uint64_t> batch;  // the batch it answers; none if that was not outstanding
  std::optional<Time> rtt;        // that batch's sample
  uint32_t losses = 0;            // earlier batches this echo shows lost (one decrease each)
};

class RogueUcRttEstimator {
 public:
  // Throws Error for sequence_bits outside 1..31.
  explicit RogueUcRttEstimator(Rate line_rate, unsigned sequence_bits = 8);

  // A batch is about to be enqueued; returns its number. Throws Error when 2^sequence_bits - 1
  // batches are outstanding already (an echo could not say which it answers).
  uint64_t on_enqueue(const RogueBatch& batch);
  // The send completion of `batch`'s last verb, at NIC time t_sig.
  void on_send_completion(uint64_t batch, Time t_sig);
  // An echo with batch number `wire_sequence` (low bits) received at NIC time t_comp.
  RogueUcEcho on_echo(uint32_t wire_sequence, Time t_comp, Time t_response);
  // The timeout for "every outstanding sample was lost": forgets them all (no loss events:
  // the caller takes the timeout instead) and returns how many there were.
  std::size_t abandon_outstanding();

  std::size_t outstanding() const { return batches_.size(); }
  // When the oldest outstanding batch was enqueued (to arm the timeout); none if none is.
  std::optional<Time> oldest_enqueue() const;
  // The number an echo for `batch` carries.
  uint32_t wire_sequence(uint64_t batch) const { return static_cast<uint32_t>(batch & mask_); }

 private:
  struct Outstanding {
    RogueBatch batch;
    std::optional<Time> previous_sig;  // t_sig of the batch enqueued just before
  };
  struct LastSig {
    uint64_t batch;
    Time t_sig;
  };

  uint64_t front() const { return next_ - batches_.size(); }

  Rate line_rate_;
  uint64_t mask_;
  std::deque<Outstanding> batches_;  // batches front() .. next_ - 1
  std::optional<LastSig> last_sig_;
  uint64_t next_ = 0;
};

}  // namespace bifrost::transport
