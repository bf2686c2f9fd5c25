#include "completion_translation.h"

#include <arpa/inet.h>

#include <cstring>

namespace bifrost::verbs {

namespace {

ibv_wc_status status_of(rnic::WcStatus s) {
  switch (s) {
    case rnic::WcStatus::success:
      return IBV_WC_SUCCESS;
    case rnic::WcStatus::local_length_error:
      return IBV_WC_LOC_LEN_ERR;
    case rnic::WcStatus::local_protection_error:
      return IBV_WC_LOC_PROT_ERR;
    case rnic::WcStatus::flush_error:
      return IBV_WC_WR_FLUSH_ERR;
    case rnic::WcStatus::remote_invalid_request:
      return IBV_WC_REM_INV_REQ_ERR;
    case rnic::WcStatus::remote_access_error:
      return IBV_WC_REM_ACCESS_ERR;
    case rnic::WcStatus::remote_operation_error:
      return IBV_WC_REM_OP_ERR;
    case rnic::WcStatus::retry_exceeded:
      return IBV_WC_RETRY_EXC_ERR;
    case rnic::WcStatus::rnr_retry_exceeded:
      return IBV_WC_RNR_RETRY_EXC_ERR;
  }
  return IBV_WC_GENERAL_ERR;
}

ibv_wc_opcode opcode_of(rnic::WcOpcode op) {
  switch (op) {
    case rnic::WcOpcode::send:
      return IBV_WC_SEND;
    case rnic::WcOpcode::rdma_write:
      return IBV_WC_RDMA_WRITE;
    case rnic::WcOpcode::rdma_read:
      return IBV_WC_RDMA_READ;
    case rnic::WcOpcode::recv:
      return IBV_WC_RECV;
    case rnic::WcOpcode::recv_rdma_with_imm:
      return IBV_WC_RECV_RDMA_WITH_IMM;
  }
  return IBV_WC_SEND;
}

void store_ipv4(uint8_t* at, world::Ipv4 ip) {
  const uint32_t be = htonl(ip.value);
  std::memcpy(at, &be, 4);
}

// 20 zero bytes, then an IPv4 header: version 4, IHL 5, the datagram's length, TTL 64, UDP.
void write_grh_room(const UdReceive& ud, uint32_t byte_len, world::Ipv4 source, world::Ipv4 local) {
  auto* room = reinterpret_cast<uint8_t*>(ud.addr);
  std::memset(room, 0, 40);
  uint8_t* ip = room + 20;
  ip[0] = 0x45;
  const uint16_t total = htons(static_cast<uint16_t>(byte_len - 40 + 20 + 8 + 12 + 8 + 4));
  std::memcpy(ip + 2, &total, 2);
  ip[8] = 64;
  ip[9] = 17;
  store_ipv4(ip + 12, source);
  store_ipv4(ip + 16, local);
}

}  // namespace

void translate_completion(const rnic::WorkCompletion& wc, const UdReceive* ud, world::Ipv4 local,
                          ibv_wc& out) {
  std::memset(&out, 0, sizeof out);
  out.wr_id = wc.wr_id;
  out.status = status_of(wc.status);
  out.opcode = opcode_of(wc.opcode);
  out.byte_len = wc.byte_len;
  out.qp_num = wc.qp_num;
  out.src_qp = wc.src_qp;
  out.pkey_index = 0;
  if (wc.imm) {
    out.wc_flags |= IBV_WC_WITH_IMM;
    out.imm_data = htonl(*wc.imm);
  }
  if (ud != nullptr && wc.status == rnic::WcStatus::success && wc.byte_len >= 40 &&
      ud->length >= 40) {
    write_grh_room(*ud, wc.byte_len, wc.src_ip, local);
    out.wc_flags |= IBV_WC_GRH;
  }
}

}  // namespace bifrost::verbs
