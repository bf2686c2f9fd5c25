#pragma once
// Encoding and decoding of the RoCEv2 UDP payload: BTH, the extended headers the opcode implies
// (DETH, RETH, AETH, ImmDt, in that order), payload, pad and ICRC. This is what a UDP socket
// sends and receives; frame.h adds the IPv4, UDP and Ethernet headers around it.
//
// Encoders write into a caller-supplied buffer and decoders return views into their input:
// neither allocates, throws, or touches a byte outside the spans they are given.
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/headers.h"
#include "bifrost/wire/icrc.h"
#include "bifrost/wire/ip_udp.h"
#include "bifrost/wire/result.h"

namespace bifrost::wire {

inline constexpr std::size_t kBthSize = 12;
inline constexpr std::size_t kDethSize = 8;
inline constexpr std::size_t kRethSize = 16;
inline constexpr std::size_t kAethSize = 4;
inline constexpr std::size_t kImmDtSize = 4;
inline constexpr std::size_t kSrExtensionSize = 24;  // bifrost's SR extension (headers.h)
// The BTH bit that announces the SR extension: bit 6 of byte 8, the first of the seven reserved
// bits after AckReq. Standard receivers ignore reserved bits on receive.
inline constexpr unsigned kSrExtensionBit = 6;
inline constexpr std::size_t kCnpReservedSize = 16;  // after a CNP's BTH (RoCEv2 A17.9.3)
// The FaSR paper's lean SR extension (section IV-D: "6 to 14 bytes"), sizes only: SEND packets
// carry the receive sequence number and the payload offset (3 + 3 B), WRITE packets their target
// address (8 B), a WRITE's packet with immediate data both (14 B: it completes a receive); a
// SACK its PSN and lost-cnt with the overflow and FNACK flags (3 + 1 B), an AACK the latter.
inline constexpr std::size_t kLeanSendExtensionSize = 6;
inline constexpr std::size_t kLeanWriteExtensionSize = 8;
inline constexpr std::size_t kLeanWriteImmExtensionSize = 14;
inline constexpr std::size_t kLeanSackExtensionSize = 4;
inline constexpr std::size_t kLeanAackExtensionSize = 1;

// Pad bytes that make a payload of this size a multiple of 4 bytes.
constexpr uint8_t pad_for(std::size_t payload_size) {
  return static_cast<uint8_t>((4 - payload_size % 4) % 4);
}

// BTH through ImmDt (or through a CNP's reserved bytes) for a supported opcode.
std::size_t header_size(Opcode op);
// The whole UDP payload: headers, payload, pad and ICRC.
std::size_t udp_payload_size(Opcode op, std::size_t payload_size);
// The same for a packet whose headers may carry the SR extension: what the encoder writes.
std::size_t udp_payload_size(const RoceHeaders& headers, std::size_t payload_size);
// The SR extension's size as a link charges it (ethernet_frame_size in frame.h): 0 if absent,
// kSrExtensionSize, or the lean size for the opcode when headers.sr.lean. The encoder always
// writes kSrExtensionSize.
std::size_t sr_extension_size(const RoceHeaders& headers);

// A decoded UDP payload. `payload` points into the decoded bytes and excludes the pad.
struct RoceView {
  RoceHeaders headers;
  std::span<const std::byte> payload;
  uint32_t icrc = 0;  // the ICRC as carried
};

// Encodes `headers` and `payload` as a UDP payload into `out` and returns its size. The ICRC is
// computed over the IPv4 and UDP headers that `ip` describes, exactly as encode_ip_udp writes
// them. headers.bth.pad_count is not read: the pad follows from the payload size. Headers the
// opcode does not carry are ignored; a CNP's reserved bytes are written as zero. On error the
// bytes of `out` are unspecified.
Result<std::size_t> encode_udp_payload(const IpUdpInfo& ip, const RoceHeaders& headers,
                                       std::span<const std::byte> payload,
                                       std::span<std::byte> out);

// encode_udp_payload without copying the payload, for a datagram sent from several buffers:
// the UDP payload is head_out[0, head) + payload + tail_out[0, tail), the tail holding the pad
// and the ICRC.
struct GatherSizes {
  std::size_t head = 0;
  std::size_t tail = 0;
};
inline constexpr std::size_t kMaxGatherTail = 3 + kIcrcSize;
Result<GatherSizes> encode_udp_gather(const IpUdpInfo& ip, const RoceHeaders& headers,
                                      std::span<const std::byte> payload,
                                      std::span<std::byte> head_out,
                                      std::span<std::byte, kMaxGatherTail> tail_out);

// Parses a UDP payload. The ICRC is returned, not checked: it covers the IP and UDP headers,
// which this function does not see (use icrc_matches or decode_ipv4_packet). A CNP's reserved
// bytes are skipped whatever they hold, as the annex says a receiver must.
Result<RoceView> decode_udp_payload(std::span<const std::byte> udp_payload);

// True if the ICRC at the end of `udp_payload` matches the packet sent inside the IPv4 and UDP
// headers that `ip` describes.
bool icrc_matches(const IpUdpInfo& ip, std::span<const std::byte> udp_payload);

}  // namespace bifrost::wire
