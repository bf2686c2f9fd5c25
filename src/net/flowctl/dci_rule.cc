#include "bifrost/net/flowctl/dci_rule.h"

#include <algorithm>
#include <cstdlib>

namespace bifrost::net {
namespace {

int64_t as_signed(Bytes b) {
  return static_cast<int64_t>(b.count());
}

Time signed_time(int64_t bytes, Rate rate) {
  const Time t = serialization_time(Bytes(static_cast<uint64_t>(std::abs(bytes))), rate);
  return bytes < 0 ? -t : t;
}

}  // namespace

DciVariables DciRule::start() const {
  // A grant arrives within Delta / Rs + T (docs/net.md, "Delta"): one slot more for rounding.
  const int64_t per_slot = std::max<int64_t>(1, p_.per_slot);
  const auto slots = static_cast<std::size_t>((p_.delta + per_slot - 1) / per_slot + 2);
  return DciVariables{.f = p_.delta + p_.per_slot, .recent = GrantWindow(slots, p_.per_slot)};
}

DciSlotResult DciRule::update(DciVariables& v, const DciSlotInput& in) const {
  const DciDeviations& d = p_.deviations;
  int64_t& f = v.f;
  DciSlotResult out;
  const bool leak = p_.leak_every > 0 && in.n % p_.leak_every == 0;
  if (d.subtract_r_first) f -= in.r;
  // F below zero means more arrived than was granted: a leak (a late pause). Left there it
  // cancels the leaked bytes out of L + F; set to zero they show as L + F - H > 0.
  if (d.reset_negative_f && leak && f < 0) {
    out.found = -f;
    f = 0;
  }
  out.excess = in.l + f - p_.h;
  const int64_t c = std::min(p_.per_slot, p_.h - in.l - f);
  int64_t c_hat = c;
  if (leak) {
    // Read literally, c - (L + F - H) grows the grant whenever nothing leaked.
    const int64_t deduct = d.only_over_grant ? std::max<int64_t>(0, out.excess) : out.excess;
    c_hat = std::max<int64_t>(0, c - deduct);
    if (!d.reset_negative_f) out.found = std::max<int64_t>(0, out.excess);
  }
  // F counts what the upstream may send, and a grant cannot be taken back.
  out.grant = d.count_granted ? std::max<int64_t>(0, c_hat) : c;
  out.pause = pause_for(c_hat);
  if (!d.subtract_r_first) f -= in.r;
  f = std::min(p_.delta + p_.per_slot, f + out.grant);
  if (d.forget_stale) {
    // One frame more: a frame of the oldest grant can straddle the window's edge.
    v.recent.push(out.grant);
    f = std::min(f, v.recent.sum() + p_.frame);
  }
  return out;
}

// The upstream starts frames while open and finishes the one on the wire when the pause
// arrives, so an open window of w lets through up to Rs x w + S: closing one frame time early
// keeps a slot within its grant. An unpaused slot needs no such margin (a continuous stream
// carries exactly Rs x T per slot). The guard makes chained full pauses overlap, so a pause
// that arrives later than the one before it leaves no gap to start a frame in.
Time DciRule::pause_for(int64_t grant) const {
  const DciDeviations& d = p_.deviations;
  if (!d.close_early) {
    // Printed: p = T - c-hat / Rs, above T for a negative c-hat (k > 1, between leak slots).
    const Time p = p_.slot - signed_time(grant, p_.rate);
    return grant <= 0 ? std::max(p, full_pause()) : p;
  }
  if (grant >= p_.per_slot) return Time::zero();
  if (grant <= 0) return full_pause();
  const Time open = serialization_time(Bytes(static_cast<uint64_t>(grant)), p_.rate);
  return std::min(p_.slot, p_.slot - open + p_.frame_time);
}

DciRuleParams dci_rule_params(const DciConfig& config, const DciLinkParams& link) {
  DciLinkParams l = link;
  l.max_frame_bytes = config.max_frame_bytes;
  const int64_t leak_headroom = int64_t{config.leak_every} * l.max_frame_bytes;
  const Bytes buffer = config.buffer.value_or(dci_min_buffer(l, config.slot, config.leak_every));
  DciDeviations deviations;
  deviations.guard = config.guard_full_pauses;
  return DciRuleParams{.h = as_signed(buffer) - leak_headroom,
                       .delta = as_signed(dci_delta(l)),
                       .per_slot = as_signed(bytes_in(config.slot, l.rate)),
                       .frame = l.max_frame_bytes,
                       .leak_every = config.leak_every,
                       .rate = l.rate,
                       .slot = config.slot,
                       .frame_time = serialization_time(
                           Bytes(uint64_t{l.max_frame_bytes} + l.overhead_bytes), l.rate),
                       .guard = dci_pause_guard(l),
                       .deviations = config.literal ? DciDeviations::none() : deviations};
}

}  // namespace bifrost::net
