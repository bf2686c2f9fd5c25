#include "message_runs.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"
#include "bw_tally.h"
#include "latency_stats.h"

namespace bifrost::perf {
namespace {

using transport::Delivery;
using transport::SendCompletion;
using transport::SendStatus;

// Message k of connection c: k in the first 8 bytes, then pattern message_seed(c, k) from
// pattern offset 8. Without --verify the bytes are whatever the slot held.
void fill_message(Session& s, size_t c, uint64_t slot, uint64_t k, uint32_t size) {
  fill_indexed(s.slot_bytes(c, slot, size), k, message_seed(c, k));
}

// Common to the clients: a free list of buffer slots per connection (a slot is reused only
// after its message completed: the NIC reads large messages in place), failure on a message
// the transport gave up on.
class MessageRunner : public Runner {
 public:
  MessageRunner(Session& s, uint32_t size) : Runner(s, size), free_slots_(s.qp_count()) {
    const uint64_t window =
        o_.is_latency() ? s.slots() : std::min<uint64_t>(o_.tx_depth, s.slots());
    for (auto& slots : free_slots_) {
      for (uint64_t i = window; i-- > 0;) slots.push_back(i);
    }
    for (size_t c = 0; c < s.qp_count(); ++c) {
      s.connection(c).set_delivery_handler([this, c](const Delivery& d) { on_delivery(c, d); });
    }
  }
  ~MessageRunner() override {
    for (size_t c = 0; c < s_.qp_count(); ++c) s_.connection(c).set_delivery_handler({});
  }

 protected:
  virtual void on_delivery(size_t c, const Delivery& d) = 0;
  virtual void on_sent(size_t c, uint64_t k) = 0;
  uint64_t retransmissions() const override { return sum_retransmitted(s_); }
  std::string stall_details() const override { return describe_connections(s_); }

  // Sends message k of connection c from a free slot (read_bw: reads the server's slot
  // k % slots into it); false if none is free.
  bool send(size_t c, uint64_t k) {
    if (free_slots_[c].empty()) return false;
    const uint64_t slot = free_slots_[c].back();
    free_slots_[c].pop_back();
    const bool read = o_.op() == Op::read;
    if (o_.verify && read) {
      // Cleared, so a read that brings nothing cannot pass on the previous content.
      std::ranges::fill(s_.slot_bytes(c, slot, size_), std::byte{0});
    } else if (o_.verify) {
      fill_message(s_, c, slot, k, size_);
    }
    auto done = [this, c, slot, k, read](const SendCompletion& result) {
      if (result.status != SendStatus::delivered) {
        free_slots_[c].push_back(slot);
        fail(fmt::format("{} {} of connection {} failed: {}", read ? "READ" : "message", k, c,
                         result.status == SendStatus::remote_access_error
                             ? "the server refused the access"
                             : "the transport gave up (every QP of the connection failed)"));
        return;
      }
      if (o_.verify && read) {
        check(message_seed(c, k % s_.slots()), s_.slot_bytes(c, slot, size_), "READ", k);
      }
      free_slots_[c].push_back(slot);
      progressed();
      on_sent(c, k);
    };
    try {
      if (read) {
        s_.connection(c).read(s_.message(c, slot, size_),
                              transport::RemoteAddress{s_.peer_slot_va(c, k), s_.peer().rkey},
                              std::move(done));
      } else {
        s_.connection(c).send(s_.message(c, slot, size_), std::move(done));
      }
    } catch (const Error& e) {
      fail(fmt::format("Connection::{} on connection {}: {}", read ? "read" : "send", c, e.what()));
    }
    return true;
  }

  std::vector<std::vector<uint64_t>> free_slots_;
  std::vector<std::byte> scratch_;
};

class MessageBwClient final : public MessageRunner {
 public:
  MessageBwClient(Session& s, uint32_t size)
      : MessageRunner(s, size), tally_(o_, s.qp_count(), size, s.loop().now()) {}
  SizeResult result() const { return tally_.result(start_, peak_bps_); }

 private:
  void post_more() override {
    for (size_t c = 0; c < tally_.lanes(); ++c) {
      while (tally_.posting_allowed(c, s_.loop().now()) && send(c, tally_.posted(c))) {
        tally_.on_posted(c);
      }
    }
  }
  void on_sent(size_t c, uint64_t) override {
    tally_.on_completed(c, s_.loop().now());
    schedule_post();
  }
  void on_delivery(size_t c, const Delivery&) override {
    fail(fmt::format("connection {} delivered a message to the sending side", c));
  }
  bool done() const override { return tally_.done(s_.loop().now()); }
  uint64_t progress_bytes() const override { return tally_.total() * size_; }

  BwTally tally_;
};

// send_lat: message k goes out when the echo of k - 1 has come back.
class MessageLatClient final : public MessageRunner {
 public:
  MessageLatClient(Session& s, uint32_t size) : MessageRunner(s, size) {
    samples_.reserve(o_.effective_iterations());
  }
  SizeResult result() {
    SizeResult r = latency_result(samples_, size_);
    r.seconds = (s_.loop().now() - start_).seconds();
    return r;
  }

 private:
  void post_more() override {
    if (waiting_ || next_ >= o_.effective_iterations()) return;
    sent_at_ = s_.loop().now();
    if (!send(0, next_)) return;  // retried when a slot frees
    ++next_;
    waiting_ = true;
  }
  void on_sent(size_t, uint64_t) override { schedule_post(); }
  void on_delivery(size_t c, const Delivery& d) override {
    const Time now = s_.loop().now();
    if (c != 0 || !waiting_ || d.length != size_) {
      fail(fmt::format("unexpected echo on connection {} ({} bytes)", c, d.length));
      return;
    }
    samples_.push_back((now - sent_at_).microseconds() / 2);
    if (o_.verify) {
      const auto bytes = delivered_bytes(d, scratch_);
      const uint64_t k = next_ - 1;
      if (index_of(bytes) != k) {
        fail(fmt::format("echo of message {} names message {}", k, index_of(bytes)));
        return;
      }
      check(message_seed(0, k), bytes.subspan(kIndexBytes), "echo", k, kIndexBytes);
    }
    waiting_ = false;
    progressed();
    schedule_post();
  }
  bool done() const override { return samples_.size() >= o_.effective_iterations(); }
  uint64_t progress_bytes() const override { return samples_.size() * size_; }

  std::vector<double> samples_;
  uint64_t next_ = 0;
  bool waiting_ = false;
  Time sent_at_;
};

}  // namespace

void fill_indexed(std::span<std::byte> bytes, uint64_t k, uint32_t seed) {
  std::memcpy(bytes.data(), &k, kIndexBytes);
  rnic::fill_pattern(seed, kIndexBytes, bytes.subspan(kIndexBytes));
}

uint64_t index_of(std::span<const std::byte> bytes) {
  uint64_t k = 0;
  std::memcpy(&k, bytes.data(), kIndexBytes);
  return k;
}

std::span<const std::byte> delivered_bytes(const Delivery& d, std::vector<std::byte>& scratch) {
  const rnic::ContentRun run = d.memory->content_at(d.addr, d.length);
  if (!run.is_pattern && run.length == d.length) return run.bytes;
  scratch.resize(d.length);
  d.memory->copy_out(d.addr, scratch);
  return scratch;
}

std::string describe_connections(Session& s) {
  std::string out;
  for (size_t c = 0; c < s.qp_count(); ++c) {
    transport::Connection& conn = s.connection(c);
    const auto& t = conn.sender_stats();
    const auto& r = conn.receiver_stats();
    out += fmt::format(
        "; connection {}: idle {}, sent {}, failed {}, WQEs posted {}, retransmitted {}, "
        "timeouts {}, failovers {}, reconnects started {} done {} abandoned {}, ACKs in {}, "
        "delivered {}, window {} B, QPs",
        c, conn.idle(), t.messages_sent, t.messages_failed, t.wqes_posted, t.retransmitted_wqes,
        t.timeouts, t.failovers, conn.stats().reconnects_started, conn.stats().reconnects_done,
        conn.stats().reconnects_abandoned, t.acks_received, r.messages_delivered,
        conn.window_bytes());
    for (const transport::Path& q : conn.qps()) {
      out += fmt::format(" {:#x}:{}/{}", q.qp->qp_num(),
                         q.role == transport::PathRole::primary        ? "primary"
                         : q.role == transport::PathRole::backup       ? "backup"
                         : q.role == transport::PathRole::reconnecting ? "reconnecting"
                                                                       : "failed",
                         q.qp->state() == rnic::QpState::err ? "err" : "ok");
    }
  }
  return out;
}

uint64_t sum_retransmitted(Session& s) {
  uint64_t n = 0;
  for (size_t c = 0; c < s.qp_count(); ++c) n += s.connection(c).sender_stats().retransmitted_wqes;
  return n;
}

ClientOutcome run_message_client(Session& s, uint32_t size) {
  ClientOutcome out;
  if (s.options().is_latency()) {
    MessageLatClient client(s, size);
    client.run(true);
    out.result = client.result();
    out.verified = client.verified();
    out.corrupt = client.corrupt();
    settle_connections(s);
  } else {
    MessageBwClient client(s, size);
    client.run(true);
    out.result = client.result();
    out.verified = client.verified();  // read_bw: the READs' bytes
    out.corrupt = client.corrupt();
    settle_connections(s);
  }
  return out;
}

MessageServer::MessageServer(Session& s, uint32_t size)
    : Runner(s, size), free_slots_(s.qp_count()) {
  for (auto& slots : free_slots_) {
    for (uint64_t i = s.slots(); i-- > 0;) slots.push_back(i);
  }
  for (size_t c = 0; c < s.qp_count(); ++c) {
    s.connection(c).set_delivery_handler([this, c](const Delivery& d) { on_delivery(c, d); });
  }
}

MessageServer::~MessageServer() {
  for (size_t c = 0; c < s_.qp_count(); ++c) s_.connection(c).set_delivery_handler({});
}

uint64_t MessageServer::retransmissions() const {
  return sum_retransmitted(s_);
}

std::string MessageServer::stall_details() const {
  return describe_connections(s_);
}

void MessageServer::on_delivery(size_t c, const Delivery& d) {
  ++received_;
  progressed();
  std::vector<std::byte> scratch;
  const bool need_bytes = o_.verify || o_.is_latency();
  const std::span<const std::byte> bytes =
      need_bytes ? delivered_bytes(d, scratch) : std::span<const std::byte>{};
  if (o_.verify) verify_arrival(c, bytes, d.length);
  if (!o_.is_latency()) return;
  // Echo: the delivery's bytes are valid only now, so copy them into a slot of our own.
  if (free_slots_[c].empty()) {
    fail("send_lat: every echo slot is busy (the client sends without waiting?)");
    return;
  }
  const uint64_t slot = free_slots_[c].back();
  free_slots_[c].pop_back();
  std::memcpy(s_.slot_bytes(c, slot, d.length).data(), bytes.data(), d.length);
  echoes_.push_back({c, slot});
  schedule_post();
}

void MessageServer::post_more() {
  for (const Echo& e : echoes_) {
    try {
      s_.connection(e.connection)
          .send(s_.message(e.connection, e.slot, size_),
                [this, c = e.connection, slot = e.slot](const SendCompletion& done) {
                  free_slots_[c].push_back(slot);
                  if (done.status != SendStatus::delivered) fail("an echo failed");
                });
    } catch (const Error& err) {
      fail(fmt::format("Connection::send of an echo: {}", err.what()));
    }
  }
  echoes_.clear();
}

bool MessageServer::done() const {
  return s_.channel().readable();
}

void MessageServer::settle() {
  settle_connections(s_);
}

PeerStats MessageServer::stats() const {
  return verify_stats(received_);
}

void settle_connections(Session& s) {
  const auto idle = [&s] {
    for (size_t c = 0; c < s.qp_count(); ++c) {
      if (!s.connection(c).idle()) return false;
    }
    return true;
  };
  const Time deadline = s.loop().now() + Time::from_seconds(s.options().timeout);
  if (!s.loop().run_until(idle, deadline)) {
    throw Error("the Bifröst connections did not become idle within {:.1f} s", s.options().timeout);
  }
}

nlohmann::json transport_counters(Session& s) {
  transport::SenderStats tx;
  transport::ReceiverStats rx;
  double srtt_sum_us = 0;
  double loss_estimate_sum = 0;
  Time min_rtt = Time::max();
  for (size_t c = 0; c < s.qp_count(); ++c) {
    const transport::RttEstimator& rtt = s.connection(c).rtt();
    srtt_sum_us += rtt.srtt().microseconds();
    min_rtt = std::min(min_rtt, rtt.min_rtt());
    loss_estimate_sum += s.connection(c).loss_rate_estimate();
    const auto& a = s.connection(c).sender_stats();
    const auto& b = s.connection(c).receiver_stats();
    tx.messages_sent += a.messages_sent;
    tx.messages_failed += a.messages_failed;
    tx.wqes_posted += a.wqes_posted;
    tx.bytes_posted += a.bytes_posted;
    tx.chunks += a.chunks;
    tx.retransmitted_wqes += a.retransmitted_wqes;
    tx.losses_detected += a.losses_detected;
    tx.timeouts += a.timeouts;
    tx.tail_probes += a.tail_probes;
    tx.acks_received += a.acks_received;
    tx.stale_acks += a.stale_acks;
    tx.rtt_samples += a.rtt_samples;
    tx.failovers += a.failovers;
    tx.reads_done += a.reads_done;
    tx.writes_done += a.writes_done;
    tx.one_sided_refused += a.one_sided_refused;
    rx.messages_delivered += b.messages_delivered;
    rx.wqes_received += b.wqes_received;
    rx.duplicates += b.duplicates;
    rx.malformed += b.malformed;
    rx.late_pieces += b.late_pieces;
    rx.acks_sent += b.acks_sent;
    rx.reads_served += b.reads_served;
    rx.writes_placed += b.writes_placed;
    rx.early_writes += b.early_writes;
  }
  return {{"messages_sent", tx.messages_sent},
          {"messages_failed", tx.messages_failed},
          {"wqes_posted", tx.wqes_posted},
          {"bytes_posted", tx.bytes_posted},
          {"chunks", tx.chunks},
          // What sizes the chunks while losses are seen (mean over connections, at the end).
          {"loss_rate_estimate",
           loss_estimate_sum / static_cast<double>(std::max<size_t>(1, s.qp_count()))},
          {"retransmitted_wqes", tx.retransmitted_wqes},
          {"losses_detected", tx.losses_detected},
          {"timeouts", tx.timeouts},
          {"tail_probes", tx.tail_probes},
          {"acks_received", tx.acks_received},
          {"stale_acks", tx.stale_acks},
          {"rtt_samples", tx.rtt_samples},
          // The RTT the chunking and the CC see (mean srtt over connections, smallest sample).
          {"srtt_us", srtt_sum_us / static_cast<double>(std::max<size_t>(1, s.qp_count()))},
          {"min_rtt_us", min_rtt == Time::max() ? 0.0 : min_rtt.microseconds()},
          {"failovers", tx.failovers},
          {"reads_done", tx.reads_done},
          {"writes_done", tx.writes_done},
          {"one_sided_refused", tx.one_sided_refused},
          {"messages_delivered", rx.messages_delivered},
          {"wqes_received", rx.wqes_received},
          {"duplicates", rx.duplicates},
          {"malformed", rx.malformed},
          {"late_pieces", rx.late_pieces},
          {"acks_sent", rx.acks_sent},
          {"reads_served", rx.reads_served},
          {"writes_placed", rx.writes_placed},
          {"early_writes", rx.early_writes},
          {"acks_unroutable", s.endpoint().stats().acks_unroutable}};
}

}  // namespace bifrost::perf
