#pragma once
// The receive side of a Virtuoso connection (§3.4). WRITE and READ need nothing here: the
// receiver stays passive. MP SENDs are numbered in posting order and fill MP RECVs in posting
// order, as SENDs fill RECVs on one QP:
//
//  - every path QP's receive queue holds the library's staging receives (the receiver cannot
//    know which QP a SEND will come on, the paper's Fig. 2 problem); a SEND's immediate carries
//    its MP SEND number (31 bits, bit 31: a large SEND's tail);
//  - a small MP SEND (one SEND) is copied from staging into its MP RECV's buffer;
//  - for a large one, every MP RECV's buffer is advertised to the sender over the UD channel
//    (repeated until acknowledged); the sender WRITEs into it across paths and, once every
//    WRITE has completed (acknowledged, hence placed: RC), sends an empty SEND carrying the
//    length in 8 bytes, so the MP RECV cannot complete before its last byte is in place;
//  - MP RECV completions go to the application in MP SEND order; a SEND that arrives twice (its
//    QP was recovered after the peer had it but before the sender saw the ACK) is dropped.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/transport/virtuoso/mp_connection.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::transport::virtuoso {

// Bit 31 of a receive-consuming SEND's immediate marks a large MP SEND's tail.
inline constexpr uint32_t kLargeTail = 1u << 31;
inline constexpr uint64_t kTailBytes = 8;  // the tail's payload: the MP SEND's length

class Reassembler {
 public:
  explicit Reassembler(MpConnection& connection);
  ~Reassembler();
  Reassembler(const Reassembler&) = delete;
  Reassembler& operator=(const Reassembler&) = delete;

  // Fills every path's receive queue (connect).
  void start();
  // A path's QP was reset: its staging receives were flushed; stale completions are ignored
  // from now on, and post_receives fills it again once the QP is connected.
  void forget_path(uint32_t path);
  void post_receives(uint32_t path);
  void post_recv(uint64_t wr_id, const MessageBuffer& buffer);
  // Advertises the MP RECVs posted before the connection knew its peer.
  void advertise_posted();
  void on_receive(const rnic::WorkCompletion& wc);
  void on_advert_ack(uint64_t sequence);
  void set_handler(MpReceiveHandler handler) { handler_ = std::move(handler); }
  bool idle() const { return recvs_.empty(); }

 private:
  struct Recv {
    uint64_t wr_id = 0;
    MessageBuffer buffer;
    bool acked = false;
  };
  struct Arrival {
    uint64_t length = 0;
    bool large = false;
    uint32_t path = 0;  // small: the staging slot holding the bytes
    uint32_t slot = 0;
  };

  uint64_t slot_addr(uint32_t path, uint32_t slot) const;
  void post_slot(uint32_t path, uint32_t slot);
  // The full MP SEND number of a 31-bit immediate, or nullopt for one already delivered.
  std::optional<uint64_t> sequence_of(uint32_t imm) const;
  void deliver();
  void send_advert(uint64_t sequence, const Recv& recv);
  void repeat_adverts();
  void arm_advert_timer();

  MpConnection& c_;
  uint64_t slot_bytes_;
  std::unique_ptr<rnic::HostMemory> staging_;
  const rnic::MemoryRegion* staging_region_ = nullptr;
  std::vector<uint16_t> generation_;  // per path; in every staging receive's wr_id
  std::map<uint64_t, Recv> recvs_;    // posted MP RECVs not yet completed, by number
  std::map<uint64_t, Arrival> arrivals_;
  uint64_t next_recv_ = 0;
  uint64_t next_deliver_ = 0;
  uint32_t advert_rounds_ = 0;
  world::TimerId advert_timer_;
  MpReceiveHandler handler_;
};

}  // namespace bifrost::transport::virtuoso
