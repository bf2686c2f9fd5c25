// Fuzz target: arbitrary bytes as an Ethernet frame, an IPv4 packet and a RoCEv2 UDP payload.
// Decoding must never crash or read out of bounds, and whatever decodes must re-encode to
// bytes that decode to the same headers and payload.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "bifrost/wire/codec.h"
#include "bifrost/wire/frame.h"

namespace {

using namespace bifrost::wire;

bool same_payload(std::span<const std::byte> a, std::span<const std::byte> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

void require(bool condition) {
  if (!condition) std::abort();
}

void check_udp_payload(std::span<const std::byte> bytes) {
  const auto view = decode_udp_payload(bytes);
  if (!view) return;
  const RoceView& v = view.value;
  const IpUdpInfo ip{0x0A000001, 0x0A000002, 0xC000, kRoceV2UdpPort, 0, 0, 64, 0};
  std::vector<std::byte> out(udp_payload_size(v.headers, v.payload.size()));
  const auto written = encode_udp_payload(ip, v.headers, v.payload, out);
  require(written.ok() && written.value == out.size());
  const auto again = decode_udp_payload(out);
  require(again.ok() && again.value.headers == v.headers &&
          same_payload(again.value.payload, v.payload) && icrc_matches(ip, out));
}

void check_frame(std::span<const std::byte> bytes) {
  const auto view = decode_ethernet_frame(bytes);
  if (!view) return;
  const FrameView& v = view.value;
  std::vector<std::byte> out(ethernet_frame_size(v.roce.headers, v.roce.payload.size()));
  const auto written = encode_ethernet_frame(v.eth, v.ip, v.roce.headers, v.roce.payload, out);
  require(written.ok() && written.value == out.size());
  const auto again = decode_ethernet_frame(out);
  require(again.ok() && again.value.eth == v.eth && again.value.ip == v.ip &&
          again.value.roce.headers == v.roce.headers &&
          same_payload(again.value.roce.payload, v.roce.payload));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto bytes = std::as_bytes(std::span<const uint8_t>(data, size));
  check_frame(bytes);
  (void)decode_ipv4_packet(bytes);
  check_udp_payload(bytes);
  return 0;
}
