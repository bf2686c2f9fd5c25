#include "virtuoso_runs.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include "bifrost/core/error.h"
#include "bw_tally.h"
#include "message_runs.h"

namespace bifrost::perf {
namespace {

namespace mp = transport::virtuoso;
using Notice = Session::Notice;

// An MP WR's or MP RECV's id: its connection, its slot and whether it is a notice.
constexpr uint64_t kLaneShift = 40;
uint64_t mp_id(size_t c, uint64_t slot, bool notice) {
  return (uint64_t{c} << kLaneShift) | (slot << 1) | (notice ? 1 : 0);
}
uint64_t slot_of(uint64_t id) {
  return (id & ((uint64_t{1} << kLaneShift) - 1)) >> 1;
}
bool is_notice(uint64_t id) {
  return (id & 1) != 0;
}

const char* op_name(mp::MpOp op) {
  return op == mp::MpOp::write ? "WRITE" : op == mp::MpOp::read ? "READ" : "SEND";
}

// write_bw --verify: the client tells the server which slot an MP WRITE filled, the server
// answers once it has checked it. Each side keeps an MP RECV posted per slot for the notices
// it receives (posted once, kept across the sizes of -a).
bool notices_used(const Options& o) {
  return o.op() == Op::write && o.verify;
}
void post_notice_recvs(Session& s, Notice kind) {
  for (size_t c = 0; c < s.qp_count(); ++c) {
    for (uint64_t slot = 0; slot < s.slots(); ++slot) {
      s.mp(c).post_recv(mp_id(c, slot, true), s.notice(c, slot, kind));
    }
  }
}
// Posts the notice naming `slot`; throws Error as MpConnection::post_send.
void post_notice(Session& s, size_t c, uint64_t slot, Notice kind) {
  const transport::MessageBuffer buffer = s.notice(c, slot, kind);
  std::memcpy(s.notice_bytes(buffer).data(), &slot, Session::kNoticeBytes);
  mp::MpWr wr;
  wr.wr_id = mp_id(c, slot, true);
  wr.op = mp::MpOp::send;
  wr.local = buffer;
  s.mp(c).post_send(wr);
}
// The slot a received notice names, or nullopt for a malformed one.
std::optional<uint64_t> notice_slot(Session& s, size_t c, const mp::MpReceive& r, Notice kind) {
  uint64_t slot = 0;
  std::memcpy(&slot, s.notice_bytes(s.notice(c, slot_of(r.wr_id), kind)).data(),
              Session::kNoticeBytes);
  if (!r.ok || r.bytes != Session::kNoticeBytes || slot >= s.slots()) return std::nullopt;
  return slot;
}

bool client_recvs_posted = false;
bool server_recvs_posted = false;

class VirtuosoBwClient final : public Runner {
 public:
  VirtuosoBwClient(Session& s, uint32_t size)
      : Runner(s, size), tally_(o_, s.qp_count(), size, s.loop().now()), free_(s.qp_count()) {
    const uint64_t window = std::min<uint64_t>(o_.tx_depth, s.slots());
    for (size_t c = 0; c < s.qp_count(); ++c) {
      for (uint64_t i = window; i-- > 0;) free_[c].push_back(i);
      s.mp(c).set_completion_handler(
          [this, c](const mp::MpCompletion& done) { on_completion(c, done); });
      s.mp(c).set_receive_handler([this, c](const mp::MpReceive& r) { on_checked(c, r); });
    }
    if (notices_used(o_) && !client_recvs_posted) {
      post_notice_recvs(s, Notice::checked);
      client_recvs_posted = true;
    }
  }
  ~VirtuosoBwClient() override {
    for (size_t c = 0; c < s_.qp_count(); ++c) {
      s_.mp(c).set_completion_handler({});
      s_.mp(c).set_receive_handler({});
    }
  }
  SizeResult result() const { return tally_.result(start_, peak_bps_); }

 private:
  void post_more() override {
    while (!written_.empty()) {
      const auto [c, slot] = written_.front();
      written_.pop_front();
      post(c, [&] { post_notice(s_, c, slot, Notice::written); });
    }
    for (size_t c = 0; c < tally_.lanes(); ++c) {
      while (!free_[c].empty() && tally_.posting_allowed(c, s_.loop().now())) post_one(c);
    }
  }
  void post_one(size_t c) {
    const uint64_t k = tally_.on_posted(c);
    const uint64_t slot = free_[c].back();
    free_[c].pop_back();
    mp::MpWr wr;
    wr.wr_id = mp_id(c, slot, false);
    wr.op = o_.op() == Op::write  ? mp::MpOp::write
            : o_.op() == Op::read ? mp::MpOp::read
                                  : mp::MpOp::send;
    wr.local = s_.message(c, slot, size_);
    wr.remote = transport::RemoteAddress{s_.peer_slot_va(c, slot), s_.peer().rkey};
    if (o_.verify && o_.op() == Op::read) {
      // Cleared, so a READ that brings nothing cannot pass on the previous content.
      std::ranges::fill(s_.slot_bytes(c, slot, size_), std::byte{0});
    } else if (o_.verify) {
      fill_indexed(s_.slot_bytes(c, slot, size_), k, message_seed(c, k));
    }
    post(c, [&] { s_.mp(c).post_send(wr); });
  }
  template <typename F>
  void post(size_t c, F&& posting) {
    try {
      posting();
    } catch (const Error& e) {
      fail(fmt::format("posting an MP WR on connection {}: {}", c, e.what()));
    }
  }
  void on_completion(size_t c, const mp::MpCompletion& done) {
    if (!done.ok) {
      fail(fmt::format(
          "MP {} of connection {} failed: a path's QP ran out of retries and could not be "
          "brought back (the peer stopped answering or refused the access)",
          op_name(done.op), c));
      return;
    }
    progressed();
    const uint64_t slot = slot_of(done.wr_id);
    if (is_notice(done.wr_id)) return;  // the slot is free once the server says it checked it
    if (notices_used(o_)) {
      written_.emplace_back(c, slot);
      schedule_post();
      return;
    }
    if (o_.verify && o_.op() == Op::read) {
      check(message_seed(c, slot), s_.slot_bytes(c, slot, size_), "READ", slot);
    }
    release(c, slot);
  }
  void on_checked(size_t c, const mp::MpReceive& r) {
    const auto slot = notice_slot(s_, c, r, Notice::checked);
    if (!slot) {
      fail(fmt::format("connection {}: a malformed notice from the server ({} bytes)", c, r.bytes));
      return;
    }
    s_.mp(c).post_recv(r.wr_id, s_.notice(c, slot_of(r.wr_id), Notice::checked));
    release(c, *slot);
  }
  void release(size_t c, uint64_t slot) {
    free_[c].push_back(slot);
    tally_.on_completed(c, s_.loop().now());
    schedule_post();
  }
  bool done() const override { return tally_.done(s_.loop().now()); }
  uint64_t progress_bytes() const override { return tally_.total() * size_; }

  BwTally tally_;
  std::vector<std::vector<uint64_t>> free_;
  std::deque<std::pair<size_t, uint64_t>> written_;  // slots whose notice is to be posted
};

}  // namespace

ClientOutcome run_virtuoso_client(Session& s, uint32_t size) {
  VirtuosoBwClient client(s, size);
  client.run(true);
  return ClientOutcome{client.result(), client.verified(), client.corrupt()};
}

VirtuosoServer::VirtuosoServer(Session& s, uint32_t size) : Runner(s, size) {
  for (size_t c = 0; c < s.qp_count(); ++c) {
    s.mp(c).set_receive_handler([this, c](const mp::MpReceive& r) { on_receive(c, r); });
    s.mp(c).set_completion_handler([this, c](const mp::MpCompletion& done) {
      if (!done.ok) fail(fmt::format("a notice to the client on connection {} failed", c));
    });
  }
  if (server_recvs_posted) return;
  if (notices_used(o_)) post_notice_recvs(s, Notice::written);
  if (o_.op() == Op::send) {
    for (size_t c = 0; c < s.qp_count(); ++c) {
      for (uint64_t slot = 0; slot < s.slots(); ++slot) {
        s.mp(c).post_recv(mp_id(c, slot, false), s.message(c, slot, o_.max_size()));
      }
    }
  }
  server_recvs_posted = true;
}

VirtuosoServer::~VirtuosoServer() {
  for (size_t c = 0; c < s_.qp_count(); ++c) {
    s_.mp(c).set_receive_handler({});
    s_.mp(c).set_completion_handler({});
  }
}

void VirtuosoServer::on_receive(size_t c, const mp::MpReceive& r) {
  ++received_;
  progressed();
  const uint64_t slot = slot_of(r.wr_id);
  if (!is_notice(r.wr_id)) {  // send_bw
    if (!r.ok) {
      fail(fmt::format("an MP SEND of {} bytes on connection {} did not fit its MP RECV", r.bytes,
                       c));
      return;
    }
    if (o_.verify)
      verify_arrival(c, s_.slot_bytes(c, slot, static_cast<uint32_t>(r.bytes)), r.bytes);
    s_.mp(c).post_recv(r.wr_id, s_.message(c, slot, o_.max_size()));
    return;
  }
  const auto filled = notice_slot(s_, c, r, Notice::written);
  if (!filled) {
    fail(fmt::format("connection {}: a malformed notice from the client ({} bytes)", c, r.bytes));
    return;
  }
  verify_arrival(c, s_.slot_bytes(c, *filled, size_), size_);
  s_.mp(c).post_recv(r.wr_id, s_.notice(c, slot, Notice::written));
  try {
    post_notice(s_, c, *filled, Notice::checked);
  } catch (const Error& e) {
    fail(fmt::format("answering a notice on connection {}: {}", c, e.what()));
  }
}

void VirtuosoServer::settle(uint64_t expected) {
  if (o_.op() != Op::send && !notices_used(o_)) return;
  const Time deadline = s_.loop().now() + Time::from_seconds(std::min(o_.timeout, 2.0));
  s_.loop().run_until([this, expected] { return received_ >= expected; }, deadline);
}

nlohmann::json virtuoso_counters(Session& s) {
  using Field = std::pair<const char*, uint64_t mp::VirtuosoStats::*>;
  using S = mp::VirtuosoStats;
  static constexpr std::array<Field, 19> kFields = {{
      {"library_calls", &S::library_calls},
      {"mp_wrs", &S::mp_wrs},
      {"mp_completions", &S::mp_completions},
      {"mp_receives", &S::mp_receives},
      {"wrs_posted", &S::wrs_posted},
      {"receives_posted", &S::receives_posted},
      {"cqes", &S::cqes},
      {"wakeups", &S::wakeups},
      {"bytes", &S::bytes},
      {"small_sends", &S::small_sends},
      {"large_sends", &S::large_sends},
      {"bytes_copied", &S::bytes_copied},
      {"duplicates_dropped", &S::duplicates_dropped},
      {"adverts_sent", &S::adverts_sent},
      {"probes", &S::probes},
      {"probe_cache_hits", &S::probe_cache_hits},
      {"retry_exceeded", &S::retry_exceeded},
      {"recoveries", &S::recoveries},
      {"wrs_reposted", &S::wrs_reposted},
  }};
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, member] : kFields) {
    uint64_t sum = 0;
    for (size_t c = 0; c < s.qp_count(); ++c) sum += s.mp(c).stats().*member;
    j[name] = sum;
  }
  // Per connection: each path's alias pair and capacity estimate (Gb/s; 1e-9 before probing).
  nlohmann::json connections = nlohmann::json::array();
  for (size_t c = 0; c < s.qp_count(); ++c) {
    const mp::MpConnection& m = s.mp(c);
    nlohmann::json paths = nlohmann::json::array();
    const auto& mine = s.mine().mp_offers[c].connection.qp_addresses;
    const auto& theirs = s.peer().mp_offers[c].connection.qp_addresses;
    for (uint32_t i = 0; i < m.path_count(); ++i) {
      paths.push_back({{"local", world::to_string(mine[i].ip)},
                       {"peer", world::to_string(theirs[i].ip)},
                       {"source_port", m.paths()[i].source_port},
                       {"capacity_gbps", m.capacities()[i] / 1e9}});
    }
    connections.push_back(
        {{"paths", paths}, {"probe_time_us", m.stats().probe_time.microseconds()}});
  }
  j["connections"] = connections;
  return j;
}

}  // namespace bifrost::perf
