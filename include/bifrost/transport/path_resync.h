#pragma once
// Resynchronising one path of a connection with the peer, in-band over the UD QP (Bifröst's
// background reconnect, A.3, and RoGUE's resync of a failed QP into the new shadow, §3.5).
//
// The side that gives up a path (the initiator) puts its QP in error, creates a fresh one with
// a new first PSN and UDP source port in its place, and asks the peer: "path i is now my QPN
// q, sending from PSN p". The peer does the same for its path i, connects the fresh QP to q,
// posts its receives and replies with its own QPN and PSN; the initiator then connects its QP.
// Requests are repeated every `interval` until a reply comes, at most `attempts` times; the
// peer answers a repeated request with the same reply instead of replacing its QP again. If
// both sides ask for the same path at once, the side whose UD address is lower yields.
//
// The owner (a connection) does the QP work through PathResyncOwner; this class keeps the
// protocol's state per path and its counters.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bifrost/core/time.h"
#include "bifrost/transport/wire/control_message.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::transport {

// Counters of the resync protocol (also part of a Bifröst connection's ConnectionStats).
struct ResyncStats {
  uint64_t reconnects_started = 0;    // by this side, for a QP it gave up
  uint64_t reconnects_done = 0;       // of those, agreed with the peer and connected
  uint64_t reconnects_abandoned = 0;  // no reply after reconnect_attempts requests
  uint64_t reconnects_accepted = 0;   // the peer's requests this side carried out
  uint64_t requests_sent = 0;         // reconnect requests, first and repeated
  uint64_t replies_sent = 0;          // including repeats for a repeated request
  uint64_t controls_ignored = 0;      // stale replies, bad QP indexes, lost tie-breaks
  // From the last reconnect's start to its QP being connected again.
  Time last_reconnect_time;
};

class PathResyncOwner {
 public:
  virtual ~PathResyncOwner() = default;
  // Puts the QP of path `index` in error and a fresh one (new first PSN and source port) in
  // its place, not yet connected.
  virtual void replace_path(size_t index) = 0;
  // The QPN and first PSN of path `index`'s current QP.
  virtual uint32_t path_qpn(size_t index) const = 0;
  virtual uint32_t path_psn(size_t index) const = 0;
  // Connects the fresh QP of path `index` to the peer's (qpn, psn) and posts its receives.
  virtual void bring_up_path(size_t index, uint32_t peer_qpn, uint32_t peer_psn) = 0;
  // The peer gave up path `index` (its request came first): the owner moves traffic off it
  // and replaces its QP (as replace_path does).
  virtual void on_path_taken(size_t index) = 0;
  // This side's resync of `index` ended: connected (ok) or abandoned after every attempt.
  virtual void on_resync_end(size_t index, bool ok) = 0;
  // The peer's view, for control messages.
  virtual bool post_control(const ControlMessage& message) = 0;
  virtual uint32_t peer_connection_id() const = 0;
  // Whether this side yields when both ask to resync the same path at once.
  virtual bool yields_to_peer() const = 0;
};

class PathResync {
 public:
  PathResync(PathResyncOwner& owner, world::Scheduler& scheduler, ResyncStats& stats, Time interval,
             uint32_t attempts);
  ~PathResync();
  PathResync(const PathResync&) = delete;
  PathResync& operator=(const PathResync&) = delete;

  // Grows the per-path state to `paths` paths.
  void resize(size_t paths);
  // Starts resynchronising path `index` (it was given up); a no-op if one is under way.
  void begin(size_t index);
  bool pending(size_t index) const { return state_[index].pending; }
  // A reconnect request or reply from the peer.
  void on_control(const ControlMessage& message);
  // Sequence numbers of this side's requests: shared with other requests of the owner.
  uint32_t next_sequence() { return next_sequence_++; }

 private:
  struct State {
    bool pending = false;
    uint32_t sequence = 0;
    uint32_t attempts = 0;
    Time started;
    world::TimerId retry;
    bool answered = false;
    ControlMessage reply;  // what the last answered request got, sent again for a repeat
  };

  void send_request(size_t index);
  void on_request(const ControlMessage& request);
  void on_reply(const ControlMessage& reply);
  void finish(State& s);

  PathResyncOwner& owner_;
  world::Scheduler& scheduler_;
  ResyncStats& stats_;
  Time interval_;
  uint32_t attempts_;
  std::vector<State> state_;  // by path index
  uint32_t next_sequence_ = 1;
};

}  // namespace bifrost::transport
