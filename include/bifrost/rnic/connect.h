#pragma once
// Brings a QP from RESET to RTS in one call, with the attributes ibv_modify_qp requires for its
// type at each step: what rdma_cm does after the peers have exchanged QPN, PSN and address.
#include <cstdint>

#include "bifrost/rnic/queue_pair.h"

namespace bifrost::rnic {

struct QpConnection {
  world::Ipv4 dest_ip;                                         // RC/UC: the peer's address
  uint32_t dest_qp_num = 0;                                    // RC/UC: the peer's QPN
  uint32_t rq_psn = 0;                                         // first PSN expected from the peer
  uint32_t sq_psn = 0;                                         // first PSN sent
  uint32_t path_mtu = 1024;                                    // RC/UC
  Access access = Access::remote_write | Access::remote_read;  // rights granted to the peer
  uint8_t sgid_index = 0;
  uint8_t traffic_class = 0;  // RC/UC (a UD send takes its class from its UdDestination)
  uint16_t udp_sport = 0;     // 0: derived from the QPN
  uint32_t qkey = 0;          // UD
  // RC only.
  uint8_t timeout = 14;  // 4.096 us * 2^timeout (67 ms, perftest's default)
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;  // 7: infinite
  uint8_t min_rnr_timer = 1;
  uint8_t max_rd_atomic = 16;
};

// Throws Error (from modify) if the QP is not in RESET or a value is out of range.
void connect_qp(QueuePair& qp, const QpConnection& connection);

}  // namespace bifrost::rnic
