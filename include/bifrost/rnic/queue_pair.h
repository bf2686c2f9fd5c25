#pragma once
// The queue-pair state machine of ibverbs (modify/query), without a data path yet: which
// transitions exist, which attributes each one requires or permits per QP type, and which
// values are legal. The tables follow ibv_modify_qp(3) and the kernel's qp_state_table.
#include <cstdint>
#include <string_view>

#include "bifrost/rnic/access.h"
#include "bifrost/rnic/memory_region.h"
#include "bifrost/world/address.h"

namespace bifrost::rnic {

class CompletionQueue;

enum class QpType : uint8_t { rc, uc, ud };
enum class QpState : uint8_t { reset, init, rtr, rts, sqd, err };
std::string_view to_string(QpType type);
std::string_view to_string(QpState state);

// Which fields of QpAttr a modify call sets, like ibverbs' IBV_QP_* mask bits.
enum class QpAttrMask : uint32_t {
  none = 0,
  state = 1u << 0,
  pkey_index = 1u << 1,
  port = 1u << 2,
  qkey = 1u << 3,
  access_flags = 1u << 4,
  av = 1u << 5,
  path_mtu = 1u << 6,
  dest_qp_num = 1u << 7,
  rq_psn = 1u << 8,
  sq_psn = 1u << 9,
  timeout = 1u << 10,
  retry_cnt = 1u << 11,
  rnr_retry = 1u << 12,
  min_rnr_timer = 1u << 13,
  max_rd_atomic = 1u << 14,
  max_dest_rd_atomic = 1u << 15,
  // A bifrost extension: the UDP source port picks the ECMP path, so the transport moves a
  // connection by changing it in RTR->RTS, RTS->RTS, SQD->RTS or SQD->SQD.
  udp_sport = 1u << 16,
};
constexpr bool enable_bit_flags(QpAttrMask) {
  return true;
}
constexpr bool has(QpAttrMask mask, QpAttrMask bit) {
  return has_all(mask, bit);
}
// "pkey_index, port", or "none".
std::string to_string(QpAttrMask mask);

// Where a connected QP sends: the peer's address and which local GID to send from.
struct AddressVector {
  world::Ipv4 dest_ip;
  uint8_t sgid_index = 0;
  constexpr bool operator==(const AddressVector&) const = default;
};

struct QpAttr {
  QpState state = QpState::reset;
  uint16_t pkey_index = 0;
  uint8_t port = 1;  // ports are numbered from 1, as in ibverbs
  uint32_t qkey = 0;
  Access access_flags = Access::none;  // remote rights granted to the peer
  AddressVector av;
  uint32_t path_mtu = 1024;   // bytes: 256, 512, 1024, 2048 or 4096
  uint32_t dest_qp_num = 0;   // 24 bits
  uint32_t rq_psn = 0;        // 24 bits
  uint32_t sq_psn = 0;        // 24 bits
  uint8_t timeout = 0;        // 5 bits: 4.096 us * 2^timeout, 0 means infinite
  uint8_t retry_cnt = 0;      // 3 bits
  uint8_t rnr_retry = 0;      // 3 bits, 7 means infinite
  uint8_t min_rnr_timer = 0;  // 5 bits, the IB encoded RNR NAK timer
  uint8_t max_rd_atomic = 0;
  uint8_t max_dest_rd_atomic = 0;
  uint16_t udp_sport = 0;  // 0 lets the NIC choose
};

// What the device permits; a QP checks attribute values against it.
struct QpLimits {
  size_t gid_count = 1;
  uint32_t max_mtu = 4096;
  uint8_t max_rd_atomic = 16;
};

class QueuePair {
 public:
  QueuePair(uint32_t qp_num, QpType type, ProtectionDomain pd, CompletionQueue& send_cq,
            CompletionQueue& recv_cq, QpLimits limits);

  // Applies the fields of `attr` named in `mask`. The target state is attr.state if the mask
  // holds `state`, otherwise the current state. Throws Error naming the QP and the transition
  // for an illegal transition, a missing required or a forbidden attribute, or a bad value;
  // the QP is unchanged when it throws.
  void modify(const QpAttr& attr, QpAttrMask mask);
  // The current state and attributes.
  const QpAttr& query() const { return attr_; }

  QpState state() const { return attr_.state; }
  uint32_t qp_num() const { return qp_num_; }
  QpType type() const { return type_; }
  ProtectionDomain pd() const { return pd_; }
  CompletionQueue& send_cq() const { return *send_cq_; }
  CompletionQueue& recv_cq() const { return *recv_cq_; }

 private:
  void check_values(const QpAttr& attr, QpAttrMask mask, std::string_view transition) const;

  uint32_t qp_num_;
  QpType type_;
  ProtectionDomain pd_;
  CompletionQueue* send_cq_;
  CompletionQueue* recv_cq_;
  QpLimits limits_;
  QpAttr attr_;
};

}  // namespace bifrost::rnic
