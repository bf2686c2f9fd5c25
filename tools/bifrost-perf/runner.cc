#include "runner.h"

#include <fmt/core.h>

#include <algorithm>

#include "bifrost/core/error.h"
#include "message_runs.h"

namespace bifrost::perf {
namespace {

constexpr Time kTick = Time::ms(100);

}  // namespace

Runner::~Runner() {
  s_.loop().cancel(tick_);
}

void Runner::run(bool watch_channel) {
  watch_channel_ = watch_channel;
  start_ = last_progress_ = last_tick_ = s_.loop().now();
  arm_tick();
  schedule_post();
  s_.loop().run_until([this] { return !failure_.empty() || done(); });
  s_.loop().cancel(tick_);
  if (!failure_.empty()) throw Error("{}", failure_);
}

uint64_t Runner::retransmissions() const {
  return s_.device().data_path_counters().tx_retransmitted;
}

void Runner::schedule_post() {
  if (post_scheduled_) return;
  post_scheduled_ = true;
  s_.loop().defer([this] {
    post_scheduled_ = false;
    if (failure_.empty()) post_more();
  });
}

void Runner::check(uint32_t seed, std::span<const std::byte> bytes, const char* what, uint64_t k,
                   uint64_t offset) {
  if (holds_pattern(seed, bytes, offset)) {
    ++verified_;
    return;
  }
  if (corrupt_ == 0) {
    fmt::print(stderr, "bifrost-perf: CORRUPT {} message {} ({} bytes)\n", what, k, bytes.size());
  }
  ++corrupt_;
}

std::optional<uint64_t> Runner::verify_arrival(size_t lane, std::span<const std::byte> bytes,
                                               uint64_t length) {
  const uint64_t k = length >= kIndexBytes ? index_of(bytes) : UINT64_MAX;
  if (length != size_ || k >= (uint64_t{1} << 32)) {
    if (corrupt_ == 0) {
      fmt::print(stderr, "bifrost-perf: CORRUPT delivery of {} bytes on connection {}\n", length,
                 lane);
    }
    ++corrupt_;
    return std::nullopt;
  }
  if (seen_.size() <= lane) seen_.resize(lane + 1);
  std::vector<uint8_t>& seen = seen_[lane];
  if (seen.size() <= k) seen.resize(std::max<uint64_t>(k + 1, seen.size() * 2), 0);
  if (seen[k]++ != 0) {
    if (duplicates_ == 0) {
      fmt::print(stderr, "bifrost-perf: message {} of connection {} delivered twice\n", k, lane);
    }
    ++duplicates_;
    return k;
  }
  check(message_seed(lane, k), bytes.subspan(kIndexBytes), "delivered", k, kIndexBytes);
  return k;
}

PeerStats Runner::verify_stats(uint64_t delivered) const {
  PeerStats p;
  p.verified = verified_;
  p.corrupt = corrupt_;
  p.duplicates = duplicates_;
  p.delivered = delivered;
  return p;
}

void Runner::arm_tick() {
  tick_ = s_.loop().after(kTick, [this] {
    tick_ = {};
    on_tick();
    if (failure_.empty()) arm_tick();
  });
}

void Runner::on_tick() {
  const Time now = s_.loop().now();
  const uint64_t bytes = progress_bytes();
  const double bps = static_cast<double>(bytes - tick_bytes_) * 8 / (now - last_tick_).seconds();
  peak_bps_ = std::max(peak_bps_, bps);
  tick_bytes_ = bytes;
  last_tick_ = now;
  if (watch_channel_ && s_.channel().readable()) {
    // The peer says nothing during a run: anything here is an error message or EOF.
    try {
      s_.channel().receive(Time::ms(100));
      fail("the peer sent a control message in the middle of the transfer");
    } catch (const Error& e) {
      fail(fmt::format("the peer went away mid-transfer: {}", e.what()));
    }
    return;
  }
  // Datagrams arriving count as progress too: a WRITE target sees no completions.
  const uint64_t rx = s_.port().counters().rx_datagrams;
  if (rx != last_rx_) {
    last_rx_ = rx;
    last_progress_ = now;
  }
  if (now - last_progress_ > Time::from_seconds(o_.timeout)) {
    fail(fmt::format(
        "no progress for {:.1f} s (peer dead or network down?); port: {} datagrams sent, {} "
        "received{}",
        o_.timeout, s_.port().counters().tx_datagrams, s_.port().counters().rx_datagrams,
        stall_details()));
    return;
  }
  if (++ticks_ % 10 == 0 && now - start_ > Time::s(2)) {
    fmt::print(stderr, "bifrost-perf: {:.1f} s: {:.1f} MB, retransmitted {}\n",
               (now - start_).seconds(), static_cast<double>(progress_bytes()) / 1e6,
               retransmissions());
  }
}

}  // namespace bifrost::perf
