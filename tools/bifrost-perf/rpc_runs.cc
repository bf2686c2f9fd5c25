#include "rpc_runs.h"

#include <fmt/core.h>

#include <algorithm>

#include "bifrost/core/error.h"
#include "bw_tally.h"
#include "latency_stats.h"
#include "message_runs.h"

namespace bifrost::perf {

using transport::MessageBuffer;
using transport::RpcChannel;
using transport::RpcRequest;
using transport::RpcResponse;
using transport::RpcStatus;

namespace {

std::vector<std::unique_ptr<RpcChannel>> open_channels(Session& s) {
  std::vector<std::unique_ptr<RpcChannel>> channels;
  for (size_t c = 0; c < s.qp_count(); ++c) {
    channels.push_back(std::make_unique<RpcChannel>(s.connection(c), rpc_config(s.options())));
  }
  return channels;
}

// Waits until every connection and channel is idle (the channels' staging is read by the NIC
// until then), so they can be destroyed.
void settle_channels(Session& s, const std::vector<std::unique_ptr<RpcChannel>>& channels) {
  settle_connections(s);
  const auto idle = [&channels] {
    return std::all_of(channels.begin(), channels.end(), [](const auto& c) { return c->idle(); });
  };
  if (!s.loop().run_until(idle, s.loop().now() + Time::from_seconds(s.options().timeout))) {
    throw Error("the RPC channels did not become idle within {:.1f} s", s.options().timeout);
  }
}

class RpcBwClient final : public Runner {
 public:
  RpcBwClient(Session& s, uint32_t size)
      : Runner(s, size),
        tally_(o_, s.qp_count(), size, s.loop().now()),
        channels_(open_channels(s)) {
    for (size_t c = 0; c < s.qp_count(); ++c) {
      s.connection(c).set_ack_delay_observer([this](Time ack_delay, Time local_delay) {
        ack_delays_.push_back(ack_delay.microseconds());
        local_delays_.push_back(local_delay.microseconds());
      });
    }
  }
  ~RpcBwClient() override {
    for (size_t c = 0; c < s_.qp_count(); ++c) s_.connection(c).set_ack_delay_observer({});
  }

  SizeResult result() {
    SizeResult r = tally_.result(start_, peak_bps_);
    set_latency_columns(r, samples_);
    const SizeResult eq1 = latency_result(eq1_samples_, size_);
    r.eq1_samples = eq1.iterations;
    r.eq1_p50 = eq1.t_typical;
    r.eq1_p99 = eq1.t_p99;
    r.eq1_p999 = eq1.t_p999;
    const SizeResult ack = latency_result(ack_delays_, size_);
    const SizeResult local = latency_result(local_delays_, size_);
    r.acks_timed = ack.iterations;
    r.ack_delay_p50 = ack.t_typical;
    r.ack_delay_p99 = ack.t_p99;
    r.local_delay_p50 = local.t_typical;
    r.local_delay_p99 = local.t_p99;
    return r;
  }
  void settle() { settle_channels(s_, channels_); }

 private:
  void post_more() override {
    const Time now = s_.loop().now();
    for (size_t c = 0; c < tally_.lanes(); ++c) {
      while (!failed() && tally_.posting_allowed(c, now) && tally_.outstanding(c) < o_.depth) {
        call(c, tally_.on_posted(c));
      }
    }
  }

  // Request k of connection c, from slot 0: the channel copies it before call() returns.
  void call(size_t c, uint64_t k) {
    if (o_.verify) fill_indexed(s_.slot_bytes(c, 0, size_), k, message_seed(c, k));
    try {
      channels_[c]->call(s_.message(c, 0, size_),
                         [this, c, k](const RpcResponse& r) { on_response(c, k, r); });
    } catch (const Error& e) {
      fail(fmt::format("RpcChannel::call on connection {}: {}", c, e.what()));
    }
  }

  void on_response(size_t c, uint64_t k, const RpcResponse& r) {
    if (r.status != RpcStatus::ok) {
      fail(fmt::format("request {} of connection {} got no response: {}{}", k, c,
                       transport::to_string(r.status), describe_connections(s_)));
      return;
    }
    if (o_.verify) check_response(c, k, r);
    samples_.push_back((r.completed - r.issued).microseconds());
    look_at_rtt(c);
    tally_.on_completed(c, s_.loop().now());
    progressed();
    schedule_post();
  }

  void check_response(size_t c, uint64_t k, const RpcResponse& r) {
    const std::span<const std::byte> bytes = delivered_bytes(r.body, scratch_);
    if (r.body.length != o_.response_bytes(size_) || index_of(bytes) != k) {
      if (corrupt_ == 0) {
        fmt::print(stderr, "bifrost-perf: CORRUPT response to request {} of connection {}\n", k, c);
      }
      ++corrupt_;
      return;
    }
    check(response_seed(c, k), bytes.subspan(kIndexBytes), "response", k, kIndexBytes);
  }

  // The estimator keeps only its newest sample: take it when there is a new one.
  void look_at_rtt(size_t c) {
    const transport::RttEstimator& rtt = s_.connection(c).rtt();
    if (rtt.samples() == eq1_seen_[c]) return;
    eq1_seen_[c] = rtt.samples();
    eq1_samples_.push_back(rtt.latest().microseconds());
  }

  bool done() const override { return tally_.done(s_.loop().now()); }
  uint64_t progress_bytes() const override { return tally_.total() * size_; }
  uint64_t retransmissions() const override { return sum_retransmitted(s_); }
  std::string stall_details() const override { return describe_connections(s_); }

  BwTally tally_;
  std::vector<std::unique_ptr<RpcChannel>> channels_;
  std::vector<double> samples_;  // RPC round trips, microseconds
  std::vector<double> eq1_samples_;
  std::vector<double> ack_delays_, local_delays_;  // per software ACK, microseconds
  std::vector<uint64_t> eq1_seen_ = std::vector<uint64_t>(s_.qp_count(), 0);
  std::vector<std::byte> scratch_;
};

}  // namespace

transport::RpcConfig rpc_config(const Options& o) {
  const uint64_t largest = std::max(o.max_size(), o.response_bytes(o.max_size()));
  const uint64_t staging = 2 * o.depth * (largest + transport::kRpcHeaderBytes + 64);
  return transport::RpcConfig{.depth = o.depth,
                              .staging_bytes = std::max<uint64_t>(staging, 1 << 20),
                              .read_threshold = o.read_threshold};
}

uint32_t response_seed(size_t c, uint64_t k) {
  return message_seed(c + 4096, k);
}

ClientOutcome run_rpc_client(Session& s, uint32_t size) {
  RpcBwClient client(s, size);
  client.run(true);
  ClientOutcome out;
  out.result = client.result();
  out.verified = client.verified();
  out.corrupt = client.corrupt();
  client.settle();
  return out;
}

RpcServer::RpcServer(Session& s, uint32_t size) : Runner(s, size), channels_(open_channels(s)) {
  for (size_t c = 0; c < channels_.size(); ++c) {
    channels_[c]->serve([this, c](const RpcRequest& r) { return respond(c, r); });
  }
}

MessageBuffer RpcServer::respond(size_t c, const RpcRequest& r) {
  ++served_;
  progressed();
  const uint32_t length = o_.response_bytes(size_);
  if (o_.verify) {
    const std::optional<uint64_t> k =
        verify_arrival(c, delivered_bytes(r.body, scratch_), r.body.length);
    // A request that names no index gets an index nobody asked for: the client counts it.
    fill_indexed(s_.slot_bytes(c, 0, length), k.value_or(UINT64_MAX),
                 response_seed(c, k.value_or(0)));
  }
  return s_.message(c, 0, length);
}

bool RpcServer::done() const {
  return s_.channel().readable();
}

uint64_t RpcServer::retransmissions() const {
  return sum_retransmitted(s_);
}

std::string RpcServer::stall_details() const {
  return describe_connections(s_);
}

void RpcServer::settle() {
  settle_channels(s_, channels_);
}

PeerStats RpcServer::stats() const {
  return verify_stats(served_);
}

}  // namespace bifrost::perf
