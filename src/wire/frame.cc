#include "bifrost/wire/frame.h"

#include "transport.h"

namespace bifrost::wire {

Result<std::size_t> encode_ipv4_packet(const IpUdpInfo& ip, const RoceHeaders& headers,
                                       std::span<const std::byte> payload, std::span<std::byte> out,
                                       UdpChecksum udp_checksum) {
  if (out.size() < kIpUdpHeaderSize) return fail<std::size_t>(WireError::kBufferTooSmall);
  const auto transport = detail::write_transport(headers, payload, out.subspan(kIpUdpHeaderSize));
  if (!transport) return transport;
  const std::size_t udp_payload = transport.value + kIcrcSize;
  const auto outer = encode_ip_udp(ip, udp_payload, out);
  if (!outer) return outer;
  const uint32_t icrc =
      icrc_ipv4(out.first<kIpv4HeaderSize>(), out.subspan<kIpv4HeaderSize, kUdpHeaderSize>(),
                out.subspan(kIpUdpHeaderSize, transport.value));
  store_icrc(icrc, out.subspan(kIpUdpHeaderSize + transport.value).first<kIcrcSize>());
  const std::size_t size = kIpUdpHeaderSize + udp_payload;
  // The UDP checksum is masked out of the ICRC, so it can be filled last.
  if (udp_checksum == UdpChecksum::kCompute) fill_udp_checksum(out.first(size));
  return {size};
}

Result<std::size_t> encode_ethernet_frame(const EthernetHeader& eth, const IpUdpInfo& ip,
                                          const RoceHeaders& headers,
                                          std::span<const std::byte> payload,
                                          std::span<std::byte> out, UdpChecksum udp_checksum) {
  const auto header = encode_ethernet_header(eth, out);
  if (!header) return header;
  const auto packet =
      encode_ipv4_packet(ip, headers, payload, out.subspan(kEthernetHeaderSize), udp_checksum);
  if (!packet) return packet;
  return {kEthernetHeaderSize + packet.value};
}

Result<Ipv4View> decode_ipv4_packet(std::span<const std::byte> packet) {
  const auto outer = decode_ip_udp(packet);
  if (!outer) return fail<Ipv4View>(outer.error);
  const auto roce = decode_udp_payload(outer.value.udp_payload);
  if (!roce) return fail<Ipv4View>(roce.error);
  const auto& headers = outer.value.headers;
  const auto& udp_payload = outer.value.udp_payload;
  const uint32_t icrc = icrc_ipv4(headers.first<kIpv4HeaderSize>(),
                                  headers.subspan<kIpv4HeaderSize, kUdpHeaderSize>(),
                                  udp_payload.first(udp_payload.size() - kIcrcSize));
  if (icrc != roce.value.icrc) return fail<Ipv4View>(WireError::kIcrcMismatch);
  return {Ipv4View{outer.value.info, roce.value}};
}

Result<FrameView> decode_ethernet_frame(std::span<const std::byte> frame) {
  const auto eth = decode_ethernet_header(frame);
  if (!eth) return fail<FrameView>(eth.error);
  if (eth.value.ethertype != kEtherTypeIpv4) return fail<FrameView>(WireError::kNotIpv4);
  const auto packet = decode_ipv4_packet(frame.subspan(kEthernetHeaderSize));
  if (!packet) return fail<FrameView>(packet.error);
  return {FrameView{eth.value, packet.value.ip, packet.value.roce}};
}

}  // namespace bifrost::wire
