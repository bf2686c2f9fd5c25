#pragma once
// The queue-pair state machine of ibverbs (modify/query), without a data path yet: which
// transitions exist, which attributes each one requires or permits per QP type, and which
// values are legal. The tables follow ibv_modify_qp(3) and the kernel's qp_state_table.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "bifrost/rnic/access.h"
#include "bifrost/rnic/memory_region.h"
#include "bifrost/world/address.h"
#include "bifrost/world/packet.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic {

class CompletionQueue;
class NicContext;
class RateLimiter;
class Requester;
class Responder;
class DcqcnReactionPoint;
struct SendWr;
struct RecvWr;

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
  // The IP traffic class byte (ibverbs grh.traffic_class): DSCP in the top six bits, ECN bits
  // ignored. The NIC schedules QPs by DSCP / 8, higher first.
  uint8_t traffic_class = 0;
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
  // Without a NicContext the QP has its state machine only (post_send/post_recv throw).
  QueuePair(uint32_t qp_num, QpType type, ProtectionDomain pd, CompletionQueue& send_cq,
            CompletionQueue& recv_cq, QpLimits limits, NicContext* nic = nullptr);
  ~QueuePair();
  QueuePair(const QueuePair&) = delete;
  QueuePair& operator=(const QueuePair&) = delete;

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

  // Data path (ibv_post_send / ibv_post_recv). Throw Error for a QP without a data path, a
  // state that cannot post, a full queue or a request the QP type cannot carry; a bad local
  // buffer completes with local_protection_error instead, as on hardware.
  void post_send(const SendWr& wr);
  void post_recv(const RecvWr& wr);
  // Moves the QP to ERR, flushing both queues (the NIC's own transition on a fatal error).
  void enter_error();

  // Used by the device: the next packet this QP sends (READ responses before requests), an
  // arriving packet, and the addressing every packet of the QP carries.
  bool produce(world::Packet& out);
  void receive(const world::Packet& packet);
  void address(world::Packet& packet, world::Ipv4 dest) const;
  Time pipeline_stall(const world::Packet& packet);
  // The UDP source port packets leave from: udp_sport, or one derived from the QPN.
  uint16_t source_port() const;
  // The transmit scheduler's class for this QP: DSCP / 8. A UD QP has no address vector of its
  // own: it is scheduled in the class of its latest send's address handle (a QP whose sends
  // all use one class, as bifrost's ACK QP, is in that class).
  int priority() const {
    return (type_ == QpType::ud ? ud_traffic_class_ : attr_.av.traffic_class) >> 5;
  }
  Requester* requester() const { return requester_.get(); }
  Responder* responder() const { return responder_.get(); }

  // The transmit scheduler's bookkeeping (device-owned; here to avoid a map look-up per packet).
  struct Scheduling {
    bool queued = false;      // on a ready list
    uint32_t burst_sent = 0;  // packets sent in the current scheduler turn
    world::TimerId wake;      // pending rate-limiter wake-up
    RateLimiter* limiter = nullptr;
    // Per-priority mode: the bank's limiter chosen for this QP (Device::assign_limiter);
    // unset: its class's.
    std::optional<size_t> limiter_index;
    // DCQCN's reaction point, made at the first CNP, and its next timer.
    std::unique_ptr<DcqcnReactionPoint> dcqcn;
    world::TimerId dcqcn_timer;
    Scheduling();
    ~Scheduling();
  };
  Scheduling& scheduling() { return scheduling_; }
  // The QP's own hardware rate limiter (created on first use).
  RateLimiter& own_limiter();

 private:
  void check_values(const QpAttr& attr, QpAttrMask mask, std::string_view transition) const;
  void require_data_path(std::string_view verb) const;

  uint32_t qp_num_;
  QpType type_;
  ProtectionDomain pd_;
  CompletionQueue* send_cq_;
  CompletionQueue* recv_cq_;
  QpLimits limits_;
  QpAttr attr_;
  uint8_t ud_traffic_class_ = 0;  // UD: the latest send's address-handle class
  NicContext* nic_;
  std::unique_ptr<Requester> requester_;
  std::unique_ptr<Responder> responder_;
  std::unique_ptr<RateLimiter> own_limiter_;
  Scheduling scheduling_;
};

}  // namespace bifrost::rnic
