#include "samples.h"

#include "bifrost/wire/codec.h"
#include "test_util.h"

namespace bifrost::wire::test {

std::vector<Opcode> supported_opcodes() {
  std::vector<Opcode> ops;
  for (int raw = 0; raw < 256; ++raw) {
    if (is_supported(static_cast<uint8_t>(raw))) ops.push_back(static_cast<Opcode>(raw));
  }
  return ops;
}

RoceHeaders sample_headers(Opcode op, Fields fields, std::size_t payload_size) {
  const HeaderChain chain = header_chain(op);
  RoceHeaders h;
  h.bth.opcode = op;
  h.bth.pad_count = pad_for(payload_size);
  switch (fields) {
    case Fields::kTypical:
      h.bth.solicited = true;
      h.bth.migration = true;
      h.bth.pkey = 0xFFFF;
      h.bth.becn = true;
      h.bth.dest_qp = 0x000123;
      h.bth.ack_request = true;
      h.bth.psn = 0xABCDEF;
      if (chain.deth) h.deth = Deth{0x11112222, 0x00ABCD};
      if (chain.reth) h.reth = Reth{0x00007F00'12345678, 0x0A0B0C0D, 4096};
      if (chain.aeth) h.aeth = make_nak(0x000777, NakCode::kInvalidRequest);
      if (chain.immdt) h.immediate = 0x01020304;
      break;
    case Fields::kAllZero:
      h.bth.migration = false;
      h.bth.pkey = 0;
      break;
    case Fields::kAllOnes:
      h.bth.solicited = true;
      h.bth.migration = true;
      h.bth.pkey = 0xFFFF;
      h.bth.fecn = true;
      h.bth.becn = true;
      h.bth.dest_qp = kPsnMask;
      h.bth.ack_request = true;
      h.bth.psn = kPsnMask;
      if (chain.deth) h.deth = Deth{0xFFFFFFFF, kPsnMask};
      if (chain.reth) h.reth = Reth{~uint64_t{0}, 0xFFFFFFFF, 0xFFFFFFFF};
      if (chain.aeth) h.aeth = Aeth{0xFF, kPsnMask};
      if (chain.immdt) h.immediate = 0xFFFFFFFF;
      break;
  }
  return h;
}

IpUdpInfo sample_ip(Fields fields) {
  switch (fields) {
    case Fields::kAllZero:
      return IpUdpInfo{0, 0, 0, kRoceV2UdpPort, 0, 0, 0, 0};
    case Fields::kAllOnes:
      return IpUdpInfo{0xFFFFFFFF, 0xFFFFFFFF, 0xFFFF, kRoceV2UdpPort, 63, 3, 255, 0xFFFF};
    case Fields::kTypical:
      break;
  }
  return IpUdpInfo{0x0A000001, 0x0A000002, 0xC123, kRoceV2UdpPort, 26, 2, 64, 0x1234};
}

std::vector<std::byte> hardware_cnp_frame() {
  return hex_bytes(
      "e41d2dab2bc2 7cfe90643b32 0800"                   // Ethernet
      "45c2 003c 718c 4000 4011 9161 0a001101 0a001201"  // IPv4
      "0000 12b7 0028 0000"                              // UDP
      "8100ffff 40000118 00000000"                       // BTH
      "00000000 00000000 00000000 00000000"              // 16 reserved bytes
      "82fd002a");                                       // ICRC
}

std::vector<std::byte> pattern(std::size_t size, uint8_t seed) {
  std::vector<std::byte> bytes(size);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : bytes) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::byte>(x >> 16);
  }
  return bytes;
}

}  // namespace bifrost::wire::test
