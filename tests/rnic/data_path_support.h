#pragma once
// Helpers shared by the data-path tests: work-request builders, a QP connect sequence like
// NicPair's (for extra QP pairs and RESET/reconnect), and zero-content checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/requester.h"
#include "bifrost/rnic/responder.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"

namespace bifrost::rnic::testing {

using sim::NicPair;
using sim::NicPairConfig;

inline SendWr make_send(uint64_t id, WrOpcode op, const NicPair::Side& side, uint64_t addr,
                        uint32_t length) {
  SendWr wr;
  wr.wr_id = id;
  wr.opcode = op;
  wr.sge = Sge{addr, length, side.mr->lkey};
  return wr;
}

inline SendWr make_remote(uint64_t id, WrOpcode op, const NicPair::Side& side, uint64_t addr,
                          uint32_t length, uint64_t remote_addr, uint32_t rkey) {
  SendWr wr = make_send(id, op, side, addr, length);
  wr.remote_addr = remote_addr;
  wr.rkey = rkey;
  return wr;
}

inline void post_recv(NicPair::Side& side, uint64_t id, uint64_t addr, uint32_t length) {
  side.qp->post_recv(RecvWr{id, Sge{addr, length, side.mr->lkey}});
}

// INIT -> RTR -> RTS towards `peer`, with the timers of `config` (as NicPair::connect does).
inline void connect_qp(QueuePair& qp, const QueuePair& peer, world::Ipv4 peer_ip,
                       const NicPairConfig& config, uint32_t psn, uint8_t traffic_class = 0) {
  QpConnection c;
  c.dest_ip = peer_ip;
  c.dest_qp_num = peer.qp_num();
  c.rq_psn = c.sq_psn = psn;
  c.path_mtu = config.mtu;
  c.traffic_class = traffic_class;
  c.timeout = config.timeout;
  c.retry_cnt = config.retry_cnt;
  c.rnr_retry = config.rnr_retry;
  c.min_rnr_timer = config.min_rnr_timer;
  rnic::connect_qp(qp, c);
}

// True if [va, va + length) of `memory` still holds what never-written memory holds (zeros).
inline bool untouched(const HostMemory& memory, uint64_t va, uint64_t length) {
  static const TokenMemory zeros(NicPair::kBufferBase, NicPairConfig{}.buffer_bytes);
  return same_content(memory, va, zeros, va, length);
}

inline std::string engine_name(const ::testing::TestParamInfo<recovery::EngineKind>& info) {
  return std::string(recovery::to_string(info.param));
}

inline auto all_engines() {
  return ::testing::Values(recovery::EngineKind::gbn, recovery::EngineKind::irn,
                           recovery::EngineKind::srnic, recovery::EngineKind::fasr);
}

}  // namespace bifrost::rnic::testing
