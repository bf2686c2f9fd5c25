#include "bifrost/rnic/queue_pair.h"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/rnic/cc/dcqcn.h"
#include "bifrost/rnic/nic_context.h"
#include "bifrost/rnic/packet_kind.h"
#include "bifrost/rnic/rate_limiter.h"
#include "bifrost/rnic/requester.h"
#include "bifrost/rnic/responder.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic {
namespace {

using M = QpAttrMask;

constexpr size_t kStates = 6;
constexpr size_t kTypes = 3;
constexpr uint32_t kMax24 = (1u << 24) - 1;

struct Rule {
  bool legal = false;
  QpAttrMask required = M::none;
  QpAttrMask optional = M::none;
};

using TypeRules = std::array<Rule, kTypes>;  // indexed by QpType

constexpr TypeRules same(QpAttrMask required, QpAttrMask optional) {
  return {Rule{true, required, optional}, Rule{true, required, optional},
          Rule{true, required, optional}};
}

constexpr QpAttrMask kRtsOptionalRc = M::access_flags | M::min_rnr_timer | M::udp_sport;
constexpr QpAttrMask kRtsOptionalUc = M::access_flags | M::udp_sport;
constexpr QpAttrMask kRtsOptionalUd = M::qkey | M::udp_sport;

// rules[from][to][type], after ibv_modify_qp(3); the `state` bit itself is handled apart.
constexpr std::array<std::array<TypeRules, kStates>, kStates> make_rules() {
  std::array<std::array<TypeRules, kStates>, kStates> r{};
  const auto reset = static_cast<size_t>(QpState::reset);
  const auto init = static_cast<size_t>(QpState::init);
  const auto rtr = static_cast<size_t>(QpState::rtr);
  const auto rts = static_cast<size_t>(QpState::rts);
  const auto sqd = static_cast<size_t>(QpState::sqd);
  const auto err = static_cast<size_t>(QpState::err);
  for (size_t from = 0; from < kStates; ++from) {
    r[from][reset] = same(M::none, M::none);
    r[from][err] = same(M::none, M::none);
  }
  const QpAttrMask init_rc = M::pkey_index | M::port | M::access_flags;
  const QpAttrMask init_ud = M::pkey_index | M::port | M::qkey;
  r[reset][init] = {Rule{true, init_rc, M::none}, Rule{true, init_rc, M::none},
                    Rule{true, init_ud, M::none}};
  r[init][init] = {Rule{true, M::none, init_rc}, Rule{true, M::none, init_rc},
                   Rule{true, M::none, init_ud}};
  const QpAttrMask rtr_uc = M::av | M::path_mtu | M::dest_qp_num | M::rq_psn;
  const QpAttrMask rtr_rc = rtr_uc | M::max_dest_rd_atomic | M::min_rnr_timer;
  const QpAttrMask rtr_optional = M::access_flags | M::pkey_index | M::udp_sport;
  r[init][rtr] = {Rule{true, rtr_rc, rtr_optional}, Rule{true, rtr_uc, rtr_optional},
                  Rule{true, M::none, M::pkey_index | M::qkey | M::udp_sport}};
  const QpAttrMask rts_rc = M::sq_psn | M::timeout | M::retry_cnt | M::rnr_retry | M::max_rd_atomic;
  r[rtr][rts] = {Rule{true, rts_rc, kRtsOptionalRc}, Rule{true, M::sq_psn, kRtsOptionalUc},
                 Rule{true, M::sq_psn, kRtsOptionalUd}};
  const TypeRules rts_again = {Rule{true, M::none, kRtsOptionalRc},
                               Rule{true, M::none, kRtsOptionalUc},
                               Rule{true, M::none, kRtsOptionalUd}};
  r[rts][rts] = rts_again;
  r[sqd][rts] = rts_again;
  r[rts][sqd] = same(M::none, M::none);
  r[sqd][sqd] = {
      Rule{true, M::none,
           M::av | M::pkey_index | M::port | M::access_flags | M::timeout | M::retry_cnt |
               M::rnr_retry | M::max_rd_atomic | M::max_dest_rd_atomic | M::min_rnr_timer |
               M::udp_sport},
      Rule{true, M::none, M::av | M::pkey_index | M::port | M::access_flags | M::udp_sport},
      Rule{true, M::none, M::pkey_index | M::qkey | M::udp_sport}};
  return r;
}

constexpr auto kRules = make_rules();

constexpr std::array<const char*, 17> kMaskNames = {"state",         "pkey_index",
                                                    "port",          "qkey",
                                                    "access_flags",  "av",
                                                    "path_mtu",      "dest_qp_num",
                                                    "rq_psn",        "sq_psn",
                                                    "timeout",       "retry_cnt",
                                                    "rnr_retry",     "min_rnr_timer",
                                                    "max_rd_atomic", "max_dest_rd_atomic",
                                                    "udp_sport"};

std::string state_upper(QpState s) {
  std::string out(to_string(s));
  for (char& c : out) c = static_cast<char>(c - ('a' - 'A'));
  return out;
}

std::string type_upper(QpType t) {
  std::string out(to_string(t));
  for (char& c : out) c = static_cast<char>(c - ('a' - 'A'));
  return out;
}

bool power_of_two_mtu(uint32_t mtu) {
  return mtu >= 256 && mtu <= 4096 && (mtu & (mtu - 1)) == 0;
}

}  // namespace

std::string_view to_string(QpType type) {
  switch (type) {
    case QpType::rc:
      return "rc";
    case QpType::uc:
      return "uc";
    case QpType::ud:
      return "ud";
  }
  return "unknown";
}

std::string_view to_string(QpState state) {
  switch (state) {
    case QpState::reset:
      return "reset";
    case QpState::init:
      return "init";
    case QpState::rtr:
      return "rtr";
    case QpState::rts:
      return "rts";
    case QpState::sqd:
      return "sqd";
    case QpState::err:
      return "err";
  }
  return "unknown";
}

std::string to_string(QpAttrMask mask) {
  std::string out;
  for (size_t i = 0; i < kMaskNames.size(); ++i) {
    if (!has(mask, static_cast<QpAttrMask>(1u << i))) continue;
    if (!out.empty()) out += ", ";
    out += kMaskNames[i];
  }
  return out.empty() ? "none" : out;
}

QueuePair::QueuePair(uint32_t qp_num, QpType type, ProtectionDomain pd, CompletionQueue& send_cq,
                     CompletionQueue& recv_cq, QpLimits limits, NicContext* nic)
    : qp_num_(qp_num),
      type_(type),
      pd_(pd),
      send_cq_(&send_cq),
      recv_cq_(&recv_cq),
      limits_(limits),
      nic_(nic) {
  // A UD QP has no path MTU attribute: like ibverbs (the port's active MTU), it sends messages
  // up to the device's MTU.
  if (type_ == QpType::ud) attr_.path_mtu = limits_.max_mtu;
  if (nic_ != nullptr) {
    requester_ = std::make_unique<Requester>(*this, *nic_);
    responder_ = std::make_unique<Responder>(*this, *nic_);
  }
}

QueuePair::~QueuePair() = default;
QueuePair::Scheduling::Scheduling() = default;
QueuePair::Scheduling::~Scheduling() = default;

void QueuePair::require_data_path(std::string_view verb) const {
  if (nic_ == nullptr) throw Error("QP {}: {} needs a QP created on a device", qp_num_, verb);
}

void QueuePair::post_send(const SendWr& wr) {
  require_data_path("post_send");
  if (type_ == QpType::ud) ud_traffic_class_ = wr.ud.traffic_class;
  requester_->post(wr);
}

void QueuePair::post_recv(const RecvWr& wr) {
  require_data_path("post_recv");
  if (type_ == QpType::ud && wr.sge.length < kGrhBytes) {
    throw Error("QP {} (UD): a receive buffer needs at least {} bytes for the GRH, got {}", qp_num_,
                kGrhBytes, wr.sge.length);
  }
  responder_->post(wr);
}

void QueuePair::enter_error() {
  if (attr_.state == QpState::err) return;
  attr_.state = QpState::err;
  if (requester_) requester_->flush();
  if (responder_) responder_->flush();
}

bool QueuePair::produce(world::Packet& out) {
  if (nic_ == nullptr) return false;
  return responder_->produce(out) || requester_->produce(out);
}

void QueuePair::receive(const world::Packet& packet) {
  if (nic_ == nullptr) return;
  const Operation op = packet_kind(packet.roce.bth.opcode).operation;
  if (op == Operation::acknowledge || op == Operation::read_response) {
    requester_->receive(packet);
  } else {
    responder_->receive(packet);
  }
}

Time QueuePair::pipeline_stall(const world::Packet& packet) {
  if (nic_ == nullptr) return Time::zero();
  const Operation op = packet_kind(packet.roce.bth.opcode).operation;
  if (op == Operation::acknowledge) return requester_->pipeline_stall(packet);
  return responder_->pipeline_stall(packet);
}

void QueuePair::address(world::Packet& packet, world::Ipv4 dest) const {
  packet.src = world::Endpoint{nic_->gid(attr_.av.sgid_index), source_port()};
  packet.dst = world::Endpoint{dest, wire::kRoceV2UdpPort};
  packet.dscp = attr_.av.traffic_class >> 2;
  if (nic_->data_path().ecn_capable) packet.ecn = 2;  // ECT(0)
}

uint16_t QueuePair::source_port() const {
  if (attr_.udp_sport != 0) return attr_.udp_sport;
  // Like NICs that hash the QPN into the dynamic port range when none is set.
  return static_cast<uint16_t>(0xC000 | ((qp_num_ * 2654435761u) >> 18));
}

RateLimiter& QueuePair::own_limiter() {
  if (!own_limiter_) own_limiter_ = std::make_unique<RateLimiter>(nic_->rate_limiter_config());
  return *own_limiter_;
}

void QueuePair::modify(const QpAttr& attr, QpAttrMask mask) {
  const QpState from = attr_.state;
  const QpState to = has(mask, M::state) ? attr.state : from;
  const std::string transition = fmt::format("{}->{}", state_upper(from), state_upper(to));
  const std::string who = fmt::format("QP {} ({})", qp_num_, type_upper(type_));
  const Rule& rule =
      kRules[static_cast<size_t>(from)][static_cast<size_t>(to)][static_cast<size_t>(type_)];
  if (!rule.legal) {
    std::string legal;
    for (size_t s = 0; s < kStates; ++s) {
      if (!kRules[static_cast<size_t>(from)][s][static_cast<size_t>(type_)].legal) continue;
      if (!legal.empty()) legal += ", ";
      legal += state_upper(static_cast<QpState>(s));
    }
    throw Error("{}: illegal transition {}; from {} a QP may go to {}", who, transition,
                state_upper(from), legal);
  }
  const auto given = static_cast<uint32_t>(mask) & ~static_cast<uint32_t>(M::state);
  const auto required = static_cast<uint32_t>(rule.required);
  const auto allowed = required | static_cast<uint32_t>(rule.optional);
  if (const uint32_t missing = required & ~given; missing != 0) {
    throw Error("{}: {} is missing required attribute(s) {}", who, transition,
                to_string(static_cast<QpAttrMask>(missing)));
  }
  if (const uint32_t extra = given & ~allowed; extra != 0) {
    throw Error("{}: {} does not accept attribute(s) {}", who, transition,
                to_string(static_cast<QpAttrMask>(extra)));
  }
  check_values(attr, mask, who + ": " + transition);

  if (to == QpState::reset) {
    attr_ = QpAttr{};  // RESET forgets everything, as on a real NIC
    if (requester_) requester_->reset();
    if (responder_) responder_->reset();
    return;
  }
  if (to == QpState::err) {
    enter_error();
    return;
  }
  if (has(mask, M::pkey_index)) attr_.pkey_index = attr.pkey_index;
  if (has(mask, M::port)) attr_.port = attr.port;
  if (has(mask, M::qkey)) attr_.qkey = attr.qkey;
  if (has(mask, M::access_flags)) attr_.access_flags = attr.access_flags;
  if (has(mask, M::av)) attr_.av = attr.av;
  if (has(mask, M::path_mtu)) attr_.path_mtu = attr.path_mtu;
  if (has(mask, M::dest_qp_num)) attr_.dest_qp_num = attr.dest_qp_num;
  if (has(mask, M::rq_psn)) attr_.rq_psn = attr.rq_psn;
  if (has(mask, M::sq_psn)) attr_.sq_psn = attr.sq_psn;
  if (has(mask, M::timeout)) attr_.timeout = attr.timeout;
  if (has(mask, M::retry_cnt)) attr_.retry_cnt = attr.retry_cnt;
  if (has(mask, M::rnr_retry)) attr_.rnr_retry = attr.rnr_retry;
  if (has(mask, M::min_rnr_timer)) attr_.min_rnr_timer = attr.min_rnr_timer;
  if (has(mask, M::max_rd_atomic)) attr_.max_rd_atomic = attr.max_rd_atomic;
  if (has(mask, M::max_dest_rd_atomic)) attr_.max_dest_rd_atomic = attr.max_dest_rd_atomic;
  if (has(mask, M::udp_sport)) attr_.udp_sport = attr.udp_sport;
  attr_.state = to;
  if (from == QpState::init && to == QpState::rtr && responder_) responder_->start(attr_.rq_psn);
  if (from == QpState::rtr && to == QpState::rts && requester_) requester_->start(attr_.sq_psn);
  if (to == QpState::rts && nic_ != nullptr) nic_->wake(*this);
}

void QueuePair::check_values(const QpAttr& attr, QpAttrMask mask, std::string_view where) const {
  auto bad = [&](std::string_view name, uint64_t value, std::string_view rule) {
    throw Error("{}: {} = {} is invalid: {}", where, name, value, rule);
  };
  // One port and a one-entry P_Key table, like a single-port RoCE NIC.
  if (has(mask, M::port) && attr.port != 1) bad("port", attr.port, "the device has port 1 only");
  if (has(mask, M::pkey_index) && attr.pkey_index != 0) {
    bad("pkey_index", attr.pkey_index, "the P_Key table has entry 0 only");
  }
  if (has(mask, M::access_flags) && allows(attr.access_flags, Access::local_write)) {
    bad("access_flags", static_cast<uint32_t>(attr.access_flags),
        "a QP grants remote rights only (remote_write, remote_read, remote_atomic)");
  }
  if (has(mask, M::av) && attr.av.sgid_index >= limits_.gid_count) {
    bad("av.sgid_index", attr.av.sgid_index,
        fmt::format("the GID table has {} entries", limits_.gid_count));
  }
  if (has(mask, M::path_mtu) &&
      (!power_of_two_mtu(attr.path_mtu) || attr.path_mtu > limits_.max_mtu)) {
    bad("path_mtu", attr.path_mtu,
        fmt::format("use 256, 512, 1024, 2048 or 4096 bytes, at most the device's {}",
                    limits_.max_mtu));
  }
  if (has(mask, M::dest_qp_num) && attr.dest_qp_num > kMax24) {
    bad("dest_qp_num", attr.dest_qp_num, "QP numbers have 24 bits");
  }
  if (has(mask, M::rq_psn) && attr.rq_psn > kMax24) bad("rq_psn", attr.rq_psn, "PSNs have 24 bits");
  if (has(mask, M::sq_psn) && attr.sq_psn > kMax24) bad("sq_psn", attr.sq_psn, "PSNs have 24 bits");
  if (has(mask, M::timeout) && attr.timeout > 31) bad("timeout", attr.timeout, "use 0..31");
  if (has(mask, M::retry_cnt) && attr.retry_cnt > 7) bad("retry_cnt", attr.retry_cnt, "use 0..7");
  if (has(mask, M::rnr_retry) && attr.rnr_retry > 7) bad("rnr_retry", attr.rnr_retry, "use 0..7");
  if (has(mask, M::min_rnr_timer) && attr.min_rnr_timer > 31) {
    bad("min_rnr_timer", attr.min_rnr_timer, "use 0..31");
  }
  if (has(mask, M::max_rd_atomic) && attr.max_rd_atomic > limits_.max_rd_atomic) {
    bad("max_rd_atomic", attr.max_rd_atomic, fmt::format("use 0..{}", limits_.max_rd_atomic));
  }
  if (has(mask, M::max_dest_rd_atomic) && attr.max_dest_rd_atomic > limits_.max_rd_atomic) {
    bad("max_dest_rd_atomic", attr.max_dest_rd_atomic,
        fmt::format("use 0..{}", limits_.max_rd_atomic));
  }
}

}  // namespace bifrost::rnic
