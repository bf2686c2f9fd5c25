#include "bifrost/net/flowctl/pause_relay.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {
namespace {

Rate rate_of_link(const EgressPort& port, const char* what) {
  if (port.channel() == nullptr) {
    throw Error("SWING pause relay: the relay's {} port {} has no link yet; create the links first",
                what, port.id());
  }
  return port.channel()->rate();
}

}  // namespace

uint16_t relayed_quanta(uint16_t quanta, Rate from, Rate to) {
  const uint64_t num = uint64_t{quanta} * static_cast<uint64_t>(to.bits_per_second());
  const auto den = static_cast<uint64_t>(from.bits_per_second());
  return static_cast<uint16_t>(std::min<uint64_t>(0xFFFF, (num + den - 1) / den));
}

PauseRelayIngress::PauseRelayIngress(uint8_t priorities, Bytes buffer, EgressPort& reverse,
                                     const EgressPort& downstream)
    : priorities_(priorities),
      buffer_(buffer),
      reverse_(reverse),
      from_(rate_of_link(downstream, "local")),
      to_(rate_of_link(reverse, "remote")) {}

IngressLimits PauseRelayIngress::limits(int priority) const {
  if (((priorities_ >> priority) & 1) == 0) return IngressLimits{};
  return IngressLimits{.lossless = true, .xoff = Threshold::fixed(Bytes(0)), .headroom = buffer_};
}

void PauseRelayIngress::on_control_arrived(const ControlFrame& frame) {
  if (frame.kind != ControlKind::kPause) return;
  const auto relayed = static_cast<uint8_t>(frame.class_enable & priorities_);
  if (relayed == 0) return;
  ControlFrame out = make_pause(relayed, 0);
  for (int p = 0; p < kPriorities; ++p) {
    if (((relayed >> p) & 1) == 0) continue;
    out.pause_quanta[p] = relayed_quanta(frame.pause_quanta[p], from_, to_);
    ++(out.pause_quanta[p] == 0 ? counters_.resumes_relayed : counters_.pauses_relayed)[p];
  }
  reverse_.send_control(out);
}

}  // namespace bifrost::net
