#include "bifrost/rnic/completion_queue.h"

#include "bifrost/core/error.h"

namespace bifrost::rnic {

std::string_view to_string(WcStatus status) {
  switch (status) {
    case WcStatus::success:
      return "success";
    case WcStatus::local_length_error:
      return "local_length_error";
    case WcStatus::local_protection_error:
      return "local_protection_error";
    case WcStatus::flush_error:
      return "flush_error";
    case WcStatus::remote_invalid_request:
      return "remote_invalid_request";
    case WcStatus::remote_access_error:
      return "remote_access_error";
    case WcStatus::remote_operation_error:
      return "remote_operation_error";
    case WcStatus::retry_exceeded:
      return "retry_exceeded";
    case WcStatus::rnr_retry_exceeded:
      return "rnr_retry_exceeded";
  }
  return "unknown";
}

std::string_view to_string(WcOpcode opcode) {
  switch (opcode) {
    case WcOpcode::send:
      return "send";
    case WcOpcode::rdma_write:
      return "rdma_write";
    case WcOpcode::rdma_read:
      return "rdma_read";
    case WcOpcode::recv:
      return "recv";
    case WcOpcode::recv_rdma_with_imm:
      return "recv_rdma_with_imm";
  }
  return "unknown";
}

CompletionQueue::CompletionQueue(uint32_t cq_num, size_t capacity)
    : cq_num_(cq_num), capacity_(capacity) {
  if (capacity == 0) throw Error("CQ {}: capacity must be at least 1 entry", cq_num);
}

bool CompletionQueue::push(const WorkCompletion& wc) {
  if (overrun() || entries_.size() == capacity_) {
    ++lost_;
    return false;
  }
  entries_.push_back(wc);
  if (handler_) handler_();
  return true;
}

size_t CompletionQueue::poll(size_t max, std::span<WorkCompletion> out) {
  if (overrun()) {
    throw Error(
        "CQ {} overran: {} completion(s) arrived while all {} entries were full and were "
        "lost; the CQ is unusable, create it with room for every completion its QPs can "
        "have outstanding",
        cq_num_, lost_, capacity_);
  }
  if (max > out.size()) {
    throw Error("CQ {}: poll for {} completions into an array of {}", cq_num_, max, out.size());
  }
  size_t n = 0;
  for (; n < max && !entries_.empty(); ++n) {
    out[n] = entries_.front();
    entries_.pop_front();
  }
  return n;
}

}  // namespace bifrost::rnic
