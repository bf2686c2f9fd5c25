#include "rogue_verbs.h"

#include <array>
#include <utility>

#include "bifrost/core/error.h"

namespace bifrost::perf {

namespace rogue = transport::rogue;
using rnic::WcOpcode;
using rnic::WrOpcode;

rogue::Work rogue_work(const rnic::SendWr& wr, const rnic::MemoryRegion& region) {
  rogue::Work w;
  w.wr_id = wr.wr_id;
  w.local = transport::MessageBuffer{&region, wr.sge.addr, wr.sge.length};
  w.remote = transport::RemoteAddress{wr.remote_addr, wr.rkey};
  w.signaled = wr.signaled;
  switch (wr.opcode) {
    case WrOpcode::rdma_write:
      w.op = rogue::Op::write;
      break;
    case WrOpcode::rdma_write_with_imm:
      w.op = rogue::Op::write;
      w.imm = wr.imm;
      break;
    case WrOpcode::send:
      w.op = rogue::Op::send;
      break;
    case WrOpcode::send_with_imm:
      w.op = rogue::Op::send;
      w.imm = wr.imm;
      break;
    case WrOpcode::rdma_read:
      w.op = rogue::Op::read;
      break;
    default:
      throw Error("RoGUE takes WRITE, READ and SEND verbs only");
  }
  return w;
}

rnic::WorkCompletion work_completion(const rogue::Completion& c) {
  rnic::WorkCompletion wc;
  wc.wr_id = c.wr_id;
  // A failed verb: RoGUE gave up on it (UC never fails a verb; RC only with no QP left).
  wc.status =
      c.status == rogue::Status::success ? rnic::WcStatus::success : rnic::WcStatus::retry_exceeded;
  wc.opcode = c.op == rogue::Op::read    ? WcOpcode::rdma_read
              : c.op == rogue::Op::write ? WcOpcode::rdma_write
                                         : WcOpcode::send;
  wc.byte_len = static_cast<uint32_t>(c.bytes);
  return wc;
}

rnic::WorkCompletion work_completion(const rogue::Receive& r) {
  rnic::WorkCompletion wc;
  wc.wr_id = r.wr_id;
  wc.opcode = r.by_write ? WcOpcode::recv_rdma_with_imm : WcOpcode::recv;
  wc.byte_len = static_cast<uint32_t>(r.bytes);
  wc.imm = r.imm;
  return wc;
}

nlohmann::json rogue_counters(Session& s) {
  using Field = std::pair<const char*, uint64_t rogue::RogueStats::*>;
  using S = rogue::RogueStats;
  static constexpr std::array<Field, 22> kFields = {{
      {"verbs_posted", &S::verbs_posted},
      {"segments_posted", &S::segments_posted},
      {"batches", &S::batches},
      {"signals", &S::signals},
      {"clock_reads", &S::clock_reads},
      {"signals_charged", &S::signals_charged},
      {"modelled_cpu_ns", &S::modelled_cpu_ns},
      {"rtt_samples", &S::rtt_samples},
      {"held_off_samples", &S::held_off_samples},
      {"discarded_samples", &S::discarded_samples},
      {"rate_updates", &S::rate_updates},
      {"lost_echoes", &S::lost_echoes},
      {"sample_timeouts", &S::sample_timeouts},
      {"probes", &S::probes},
      {"shadow_switches", &S::shadow_switches},
      {"resent_segments", &S::resent_segments},
      {"resyncs", &S::resyncs},
      {"duplicates_suppressed", &S::duplicates_suppressed},
      {"echoes_sent", &S::echoes_sent},
      {"verbs_completed", &S::verbs_completed},
      {"bytes_completed", &S::bytes_completed},
      {"verbs_failed", &S::verbs_failed},
  }};
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, member] : kFields) {
    uint64_t sum = 0;
    for (size_t c = 0; c < s.qp_count(); ++c) sum += s.rogue(c).stats().*member;
    j[name] = sum;
  }
  double window = 0;
  double rate_gbps = 0;
  for (size_t c = 0; c < s.qp_count(); ++c) {
    window += static_cast<double>(s.rogue(c).write_window());
    const auto rate = s.rogue(c).write_rate();
    rate_gbps += rate ? rate->gbps() : 0.0;
  }
  const auto n = static_cast<double>(std::max<size_t>(s.qp_count(), 1));
  j["write_window_bytes_mean"] = window / n;
  j["write_rate_gbps_mean"] = rate_gbps / n;
  return j;
}

}  // namespace bifrost::perf
