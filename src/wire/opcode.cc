#include "bifrost/wire/opcode.h"

#include <array>

namespace bifrost::wire {
namespace {

struct OpcodeInfo {
  bool supported = false;
  HeaderChain chain;
  std::string_view name;
};

// One row per raw opcode value, so the per-packet look-ups are a single index.
constexpr std::array<OpcodeInfo, 256> make_table() {
  std::array<OpcodeInfo, 256> t{};
  auto set = [&t](Opcode op, std::string_view name, HeaderChain chain) {
    t[static_cast<uint8_t>(op)] = OpcodeInfo{true, chain, name};
  };
  //                    deth   reth   aeth   immdt  payload
  constexpr HeaderChain kData{false, false, false, false, true};
  constexpr HeaderChain kImm{false, false, false, true, true};
  constexpr HeaderChain kReth{false, true, false, false, true};
  constexpr HeaderChain kRethImm{false, true, false, true, true};
  constexpr HeaderChain kReadReq{false, true, false, false, false};
  constexpr HeaderChain kAethData{false, false, true, false, true};
  constexpr HeaderChain kAck{false, false, true, false, false};
  constexpr HeaderChain kDeth{true, false, false, false, true};
  constexpr HeaderChain kDethImm{true, false, false, true, true};
  constexpr HeaderChain kCnp{false, false, false, false, false, true};

  set(Opcode::kRcSendFirst, "RC_SEND_FIRST", kData);
  set(Opcode::kRcSendMiddle, "RC_SEND_MIDDLE", kData);
  set(Opcode::kRcSendLast, "RC_SEND_LAST", kData);
  set(Opcode::kRcSendLastImm, "RC_SEND_LAST_WITH_IMMEDIATE", kImm);
  set(Opcode::kRcSendOnly, "RC_SEND_ONLY", kData);
  set(Opcode::kRcSendOnlyImm, "RC_SEND_ONLY_WITH_IMMEDIATE", kImm);
  set(Opcode::kRcWriteFirst, "RC_RDMA_WRITE_FIRST", kReth);
  set(Opcode::kRcWriteMiddle, "RC_RDMA_WRITE_MIDDLE", kData);
  set(Opcode::kRcWriteLast, "RC_RDMA_WRITE_LAST", kData);
  set(Opcode::kRcWriteLastImm, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", kImm);
  set(Opcode::kRcWriteOnly, "RC_RDMA_WRITE_ONLY", kReth);
  set(Opcode::kRcWriteOnlyImm, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", kRethImm);
  set(Opcode::kRcReadRequest, "RC_RDMA_READ_REQUEST", kReadReq);
  set(Opcode::kRcReadResponseFirst, "RC_RDMA_READ_RESPONSE_FIRST", kAethData);
  set(Opcode::kRcReadResponseMiddle, "RC_RDMA_READ_RESPONSE_MIDDLE", kData);
  set(Opcode::kRcReadResponseLast, "RC_RDMA_READ_RESPONSE_LAST", kAethData);
  set(Opcode::kRcReadResponseOnly, "RC_RDMA_READ_RESPONSE_ONLY", kAethData);
  set(Opcode::kRcAcknowledge, "RC_ACKNOWLEDGE", kAck);
  set(Opcode::kUcSendFirst, "UC_SEND_FIRST", kData);
  set(Opcode::kUcSendMiddle, "UC_SEND_MIDDLE", kData);
  set(Opcode::kUcSendLast, "UC_SEND_LAST", kData);
  set(Opcode::kUcSendLastImm, "UC_SEND_LAST_WITH_IMMEDIATE", kImm);
  set(Opcode::kUcSendOnly, "UC_SEND_ONLY", kData);
  set(Opcode::kUcSendOnlyImm, "UC_SEND_ONLY_WITH_IMMEDIATE", kImm);
  set(Opcode::kUcWriteFirst, "UC_RDMA_WRITE_FIRST", kReth);
  set(Opcode::kUcWriteMiddle, "UC_RDMA_WRITE_MIDDLE", kData);
  set(Opcode::kUcWriteLast, "UC_RDMA_WRITE_LAST", kData);
  set(Opcode::kUcWriteLastImm, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", kImm);
  set(Opcode::kUcWriteOnly, "UC_RDMA_WRITE_ONLY", kReth);
  set(Opcode::kUcWriteOnlyImm, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", kRethImm);
  set(Opcode::kUdSendOnly, "UD_SEND_ONLY", kDeth);
  set(Opcode::kUdSendOnlyImm, "UD_SEND_ONLY_WITH_IMMEDIATE", kDethImm);
  set(Opcode::kCnp, "CNP", kCnp);
  return t;
}

constexpr std::array<OpcodeInfo, 256> kTable = make_table();

}  // namespace

bool is_supported(uint8_t raw_opcode) {
  return kTable[raw_opcode].supported;
}

HeaderChain header_chain(Opcode op) {
  return kTable[static_cast<uint8_t>(op)].chain;
}

Transport transport_of(Opcode op) {
  // The top three opcode bits name the transport (IBTA table 38): 000 RC, 001 UC, 011 UD, and
  // 100 CNP (RoCEv2 annex A17).
  switch (static_cast<uint8_t>(op) >> 5) {
    case 0:
      return Transport::kRc;
    case 1:
      return Transport::kUc;
    case 4:
      return Transport::kCnp;
    default:
      return Transport::kUd;
  }
}

std::string_view opcode_name(Opcode op) {
  const OpcodeInfo& info = kTable[static_cast<uint8_t>(op)];
  return info.supported ? info.name : std::string_view("UNSUPPORTED");
}

}  // namespace bifrost::wire
