#include "bifrost/wire/ethernet.h"

#include <cstring>

#include "bifrost/wire/byte_order.h"

namespace bifrost::wire {

Result<std::size_t> encode_ethernet_header(const EthernetHeader& eth, std::span<std::byte> out) {
  if (out.size() < kEthernetHeaderSize) return fail<std::size_t>(WireError::kBufferTooSmall);
  std::memcpy(out.data(), eth.dst.data(), eth.dst.size());
  std::memcpy(out.data() + 6, eth.src.data(), eth.src.size());
  detail::store_be16(out.data() + 12, eth.ethertype);
  return {kEthernetHeaderSize};
}

Result<EthernetHeader> decode_ethernet_header(std::span<const std::byte> in) {
  if (in.size() < kEthernetHeaderSize) return fail<EthernetHeader>(WireError::kTruncated);
  EthernetHeader eth;
  std::memcpy(eth.dst.data(), in.data(), eth.dst.size());
  std::memcpy(eth.src.data(), in.data() + 6, eth.src.size());
  eth.ethertype = detail::load_be16(in.data() + 12);
  return {eth};
}

}  // namespace bifrost::wire
