#pragma once
// A bounded completion queue. Like a hardware CQ it never grows: a completion arriving while it
// is full puts the CQ into an overrun error state (ibverbs' IBV_EVENT_CQ_ERR), and every later
// poll throws, because completions were lost and the application cannot recover them.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string_view>

#include "bifrost/core/inplace_function.h"
#include "bifrost/core/time.h"
#include "bifrost/world/address.h"

namespace bifrost::rnic {

enum class WcStatus : uint8_t {
  success,
  local_length_error,
  local_protection_error,
  flush_error,
  remote_invalid_request,
  remote_access_error,
  remote_operation_error,
  retry_exceeded,
  rnr_retry_exceeded,
};
std::string_view to_string(WcStatus status);

enum class WcOpcode : uint8_t { send, rdma_write, rdma_read, recv, recv_rdma_with_imm };
std::string_view to_string(WcOpcode opcode);

struct WorkCompletion {
  uint64_t wr_id = 0;
  WcStatus status = WcStatus::success;
  WcOpcode opcode = WcOpcode::send;
  uint32_t byte_len = 0;
  std::optional<uint32_t> imm;
  uint32_t qp_num = 0;
  Time hw_timestamp;
  // RC sends, with DeviceConfig::complete_sends_at_transmit: when the request's last packet
  // first left the NIC (zero otherwise). A soft-RNIC extension (ConnectX CQEs have only the
  // completion's time): software RTT over RC needs it when the NIC's own queue is deep.
  Time sent_timestamp;
  // UD receives: who sent it (the GRH and DETH of the packet).
  uint32_t src_qp = 0;
  world::Ipv4 src_ip;
  // Receives: a packet that reached this QP's receive side since its previous receive
  // completion arrived CE-marked (for a message received in order: a packet of this message).
  // A soft-RNIC extension so that software congestion control sees ECN: ConnectX CQEs carry
  // no such bit; on hardware the NIC's CNPs (or its DCQCN) would deliver the same signal.
  bool ecn_ce = false;
};

// A completion with the fields every completion has (the UD source fields stay empty).
inline WorkCompletion make_completion(uint64_t wr_id, WcStatus status, WcOpcode opcode,
                                      uint32_t byte_len, std::optional<uint32_t> imm,
                                      uint32_t qp_num, Time hw_timestamp) {
  WorkCompletion wc;
  wc.wr_id = wr_id;
  wc.status = status;
  wc.opcode = opcode;
  wc.byte_len = byte_len;
  wc.imm = imm;
  wc.qp_num = qp_num;
  wc.hw_timestamp = hw_timestamp;
  return wc;
}

class CompletionQueue {
 public:
  // Throws Error if capacity is 0.
  CompletionQueue(uint32_t cq_num, size_t capacity);

  // Called by the NIC. Returns false, drops the entry and enters the overrun state if full.
  bool push(const WorkCompletion& wc);
  // Told after every completion is queued, like a completion channel that is always armed.
  // It runs inside the NIC's processing: it must not destroy QPs or post work synchronously
  // (schedule that instead).
  void set_handler(InplaceFunction<void(), 16> handler) { handler_ = std::move(handler); }
  // Moves up to `max` oldest entries into `out` and returns how many. Throws Error if max
  // exceeds out.size() or if the CQ has overrun.
  size_t poll(size_t max, std::span<WorkCompletion> out);

  uint32_t cq_num() const { return cq_num_; }
  size_t capacity() const { return capacity_; }
  size_t size() const { return entries_.size(); }
  bool overrun() const { return lost_ > 0; }
  uint64_t lost() const { return lost_; }

 private:
  uint32_t cq_num_;
  size_t capacity_;
  std::deque<WorkCompletion> entries_;
  uint64_t lost_ = 0;
  InplaceFunction<void(), 16> handler_;
};

}  // namespace bifrost::rnic
