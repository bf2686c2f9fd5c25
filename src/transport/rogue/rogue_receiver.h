#pragma once
// RoGUE's receiver-side library (§3.6), one per connection. It owns the receive queues of the
// connection's QPs: it keeps receive_slots receives posted into its own staging memory, so
// that RoGUE's zero-length WRITE_WITH_IMMs (UC echo requests and echoes) never consume the
// application's receives. It
// - answers an echo request (UC) with a zero-length WRITE_WITH_IMM carrying
//   T_response = t_rep - t_imm (wire/rogue_imm.h), and hands echoes to the connection;
// - hands a SEND to the application's next posted receive (copied from staging: the cost of
//   owning the queue) and an application immediate to its next receive, in arrival order;
// - applies the rate the peer asks for on this side's QP (READ pacing, a set_rate control
//   message: the paper sends it as a WRITE_IMM, our deviation).
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "bifrost/rnic/host_memory.h"
#include "bifrost/transport/rogue/rogue_connection.h"

namespace bifrost::transport::rogue {

class RogueReceiver {
 public:
  // The wr_id of the echoes this library posts (never a segment's: those count up from 1).
  static constexpr uint64_t kEchoWrId = uint64_t{1} << 63;

  RogueReceiver(RogueConnection& connection, const RogueConfig& config, RogueStats& stats);
  ~RogueReceiver();

  // Posts the staging receives on every QP of the connection.
  void start();
  // Posts the staging receives on one QP (a resynchronised QP).
  void post_receives(rnic::QueuePair& qp);
  void post_app_receive(uint64_t wr_id, const MessageBuffer& buffer);
  void set_handler(ReceiveHandler handler) { handler_ = std::move(handler); }
  void on_completion(const rnic::WorkCompletion& wc);
  // The peer asks for a rate on our QP `qp_index` (its READ responses come from there).
  void on_set_rate(uint16_t qp_index, uint64_t bps);
  // RC: the peer's shadow QP took over (rogue_shadow.cc): acknowledges, and from now on takes
  // receives from that path, dropping the ones a whole-verb resend delivers twice.
  void on_takeover(const ControlMessage& notice);

 private:
  // A SEND or an application immediate waiting for the application's next receive.
  struct Arrival {
    uint32_t slot = 0;
    uint32_t qp_num = 0;
    uint64_t bytes = 0;
    std::optional<uint32_t> imm;
    bool by_write = false;
  };
  struct AppReceive {
    uint64_t wr_id = 0;
    MessageBuffer buffer;
  };

  void repost(rnic::QueuePair& qp, uint32_t slot);
  void repost(const rnic::WorkCompletion& wc);
  // A successful receive: RoGUE's own (UC) or the application's, in order.
  void accept(const rnic::WorkCompletion& wc);
  void echo(const rnic::WorkCompletion& wc, uint8_t batch);
  void deliver();

  RogueConnection& connection_;
  RogueConfig config_;
  RogueStats& stats_;
  std::unique_ptr<rnic::HostMemory> staging_;
  const rnic::MemoryRegion* staging_region_ = nullptr;
  // RC duplicate suppression: receives come from one path at a time, the one the peer's last
  // takeover notice named; receives from another path wait for its notice.
  size_t current_path_ = 0;
  uint64_t received_ = 0;  // receive-consuming messages taken, in order over the connection
  uint64_t skip_ = 0;      // duplicates still to drop on the current path
  uint32_t last_notice_ = 0;
  std::vector<rnic::WorkCompletion> held_;
  std::deque<Arrival> arrivals_;
  std::deque<AppReceive> app_receives_;
  ReceiveHandler handler_;
};

}  // namespace bifrost::transport::rogue
