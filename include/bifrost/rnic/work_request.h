#pragma once
// Work requests as an application posts them (ibv_send_wr / ibv_recv_wr). One scatter/gather
// element per request: bifrost's transports never need more, and it keeps a WQE small.
#include <cstdint>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/world/address.h"

namespace bifrost::rnic {

// A local buffer: [addr, addr + length) inside the memory region of `lkey`.
struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

// Where a UD send goes (the address handle plus remote QPN and Q_Key of ibv_send_wr.wr.ud).
// As in an address handle's GRH, the traffic class is the datagram's: DSCP = class >> 2.
struct UdDestination {
  world::Ipv4 ip;
  uint32_t qp_num = 0;
  uint32_t qkey = 0;
  uint8_t traffic_class = 0;
};

struct SendWr {
  uint64_t wr_id = 0;
  WrOpcode opcode = WrOpcode::send;
  Sge sge;                   // SEND/WRITE: the payload; READ: where the data lands
  uint64_t remote_addr = 0;  // WRITE / READ
  uint32_t rkey = 0;         // WRITE / READ
  uint32_t imm = 0;          // *_with_imm
  bool signaled = true;      // false: no completion unless it fails
  bool solicited = false;
  UdDestination ud;  // UD only
};

// The receive sequence number of a message that consumes no receive (RDMA WRITE without
// immediate), as the SR extension header carries it.
inline constexpr uint32_t kNoReceiveSequence = 0xFFFF'FFFF;

// The opcode a send completion of `op` carries.
constexpr WcOpcode send_completion_opcode(WrOpcode op) {
  switch (op) {
    case WrOpcode::send:
    case WrOpcode::send_with_imm:
      return WcOpcode::send;
    case WrOpcode::rdma_write:
    case WrOpcode::rdma_write_with_imm:
      return WcOpcode::rdma_write;
    case WrOpcode::rdma_read:
      return WcOpcode::rdma_read;
  }
  return WcOpcode::send;
}

struct RecvWr {
  uint64_t wr_id = 0;
  Sge sge;
};

}  // namespace bifrost::rnic
