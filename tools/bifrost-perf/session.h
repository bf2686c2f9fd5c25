#pragma once
// One side of a bifrost-perf run: the control connection, the event loop, the UDP port, the
// soft RNIC with its QPs connected to the peer's, and the registered buffer (slots of the
// largest message size, per QP). With --transport bifrost-uc|bifrost-rc it holds a Bifröst
// endpoint with one connection per -q instead of bare QPs; the buffer's slots are then per
// connection and hold the messages handed to Connection::send. With --transport
// rogue-rc|rogue-uc it holds one RoGUE connection per -q, which take the same verbs as bare
// QPs (rogue_lanes.h). With --transport virtuoso it holds one Virtuoso multi-path connection
// per -q, each with --paths RC QPs from the device's alias GIDs (virtuoso_runs.h).
#include <fstream>
#include <memory>
#include <span>
#include <vector>

#include "bifrost/real/bootstrap.h"
#include "bifrost/real/event_loop.h"
#include "bifrost/real/udp_port.h"
#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/responder.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/rogue/rogue_connection.h"
#include "bifrost/transport/virtuoso/mp_connection.h"
#include "options.h"

namespace bifrost::perf {

class Session {
 public:
  static constexpr uint64_t kBufferBase = 0x7f00'0000'0000;

  // Connects (client) or waits for a client (server), builds the NIC and connects its QPs.
  explicit Session(const Options& options);
  ~Session();

  const Options& options() const { return options_; }
  real::EventLoop& loop() { return *loop_; }
  real::UdpPort& port() { return *port_; }
  rnic::Device& device() { return *device_; }
  real::ControlChannel& channel() { return channel_; }
  rnic::CompletionQueue& cq() { return *cq_; }
  rnic::QueuePair& qp(size_t i) { return *qps_[i]; }
  // QPs (verbs) or connections (Bifröst, RoGUE): the unit slots and patterns are counted by.
  size_t qp_count() const {
    if (options_.uses_bifrost()) return connections_.size();
    if (options_.uses_virtuoso()) return mp_.size();
    return options_.uses_rogue() ? rogue_.size() : qps_.size();
  }
  transport::Endpoint& endpoint() { return *endpoint_; }
  transport::Connection& connection(size_t i) { return *connections_[i]; }
  bool has_endpoint() const { return endpoint_ != nullptr; }
  transport::rogue::RogueConnection& rogue(size_t i) { return *rogue_[i]; }
  transport::virtuoso::MpConnection& mp(size_t i) { return *mp_[i]; }
  const rnic::MemoryRegion& mr() const { return *mr_; }
  // A message of `length` bytes in slot `slot` of connection `c`, for Connection::send.
  transport::MessageBuffer message(size_t c, uint64_t slot, uint32_t length) const {
    return transport::MessageBuffer{mr_, slot_va(c, slot), length};
  }
  const real::PeerInfo& peer() const { return peer_; }
  const real::PeerInfo& mine() const { return mine_; }
  uint32_t lkey() const { return mr_->lkey; }

  uint32_t slots() const { return slots_; }
  uint64_t slot_va(size_t qp, uint64_t slot) const {
    return kBufferBase + (qp * slots_ + slot % slots_) * slot_bytes_;
  }
  uint64_t peer_slot_va(size_t qp, uint64_t slot) const {
    return peer_.buffer_va + (qp * slots_ + slot % slots_) * slot_bytes_;
  }
  std::span<std::byte> slot_bytes(size_t qp, uint64_t slot, uint32_t length) {
    return memory_->bytes().subspan(slot_va(qp, slot) - kBufferBase, length);
  }
  // Virtuoso write_bw --verify: after the slots, per slot an 8-byte notice that an MP WRITE
  // filled it (client to server) and one that the server checked it (back): an MP WRITE has
  // no immediate, and the slot may be written again only once the server has checked it.
  enum class Notice : uint8_t { written = 0, checked = 1 };
  static constexpr uint32_t kNoticeBytes = 8;
  transport::MessageBuffer notice(size_t qp, uint64_t slot, Notice kind) const {
    const uint64_t index = ((qp * slots_ + slot % slots_) * 2) + static_cast<uint64_t>(kind);
    return transport::MessageBuffer{
        mr_, kBufferBase + slot_bytes_ * slots_ * options_.qps + index * kNoticeBytes,
        kNoticeBytes};
  }
  std::span<std::byte> notice_bytes(const transport::MessageBuffer& notice) {
    return memory_->bytes().subspan(notice.addr - kBufferBase, kNoticeBytes);
  }

  // -c UD: every receive buffer starts with the 40-byte GRH room (as in ibverbs), so a SEND's
  // bytes land recv_offset() into its slot; every SEND names its destination.
  bool ud() const { return options_.connection == "UD" && !options_.uses_bifrost(); }
  uint32_t recv_offset() const { return ud() ? rnic::kGrhBytes : 0; }
  // Where a received SEND's bytes are in the slot it landed in.
  uint64_t recv_va(size_t qp, uint64_t slot) const { return slot_va(qp, slot) + recv_offset(); }
  std::span<std::byte> recv_bytes(size_t qp, uint64_t slot, uint32_t length) {
    return memory_->bytes().subspan(recv_va(qp, slot) - kBufferBase, length);
  }
  rnic::UdDestination ud_destination(size_t qp) const {
    return rnic::UdDestination{peer_.ip, peer_.qps[qp].qpn, kUdQkey};
  }
  static constexpr uint32_t kUdQkey = 0x1B1F'0001;

 private:
  // Connections, offers exchanged over the bootstrap, connected.
  void build_bifrost(world::Ipv4 local, uint64_t length);
  void build_rogue(world::Ipv4 local, uint64_t length);
  // Virtuoso: connections, offers exchanged, connected together, probing finished on both sides.
  void build_virtuoso(world::Ipv4 local, uint64_t length);
  // Sends {"phase": phase} and waits for the peer's; throws Error for anything else.
  void barrier(const char* phase, Time timeout);
  void expect_phase(const char* phase, Time timeout);
  // --rogue_trace: every connection's CC events as CSV lines.
  void trace_rogue(const std::string& path);
  // This side's address, buffer and settings, for the bootstrap.
  void describe_self(world::Ipv4 local, uint64_t length);

  Options options_;
  real::ControlChannel channel_;
  std::unique_ptr<real::EventLoop> loop_;
  std::unique_ptr<real::UdpPort> port_;
  std::unique_ptr<rnic::Device> device_;
  std::unique_ptr<rnic::ByteMemory> memory_;
  const rnic::MemoryRegion* mr_ = nullptr;
  rnic::CompletionQueue* cq_ = nullptr;
  std::vector<rnic::QueuePair*> qps_;
  std::unique_ptr<transport::Endpoint> endpoint_;
  std::vector<transport::Connection*> connections_;
  std::vector<std::unique_ptr<transport::rogue::RogueConnection>> rogue_;
  std::ofstream rogue_trace_;
  std::vector<std::unique_ptr<transport::virtuoso::MpConnection>> mp_;
  uint32_t slots_ = 1;
  uint64_t slot_bytes_ = 0;
  real::PeerInfo mine_;
  real::PeerInfo peer_;
};

// The pattern seed of message `k` of QP `qp` (24 bits, never 0).
inline uint32_t message_seed(size_t qp, uint64_t k) {
  return 1 + static_cast<uint32_t>((qp * 7919 + k) % ((1u << 24) - 2));
}
// True if `bytes` hold pattern `seed` from pattern offset `offset`.
bool holds_pattern(uint32_t seed, std::span<const std::byte> bytes, uint64_t offset = 0);

}  // namespace bifrost::perf
