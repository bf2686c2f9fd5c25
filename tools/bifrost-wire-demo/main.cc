// bifrost-wire-demo: writes the scripted two-host RoCEv2 exchange to a pcap, reads the file
// back, decodes every frame and prints what it found.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "bifrost/core/error.h"
#include "bifrost/wire/demo_exchange.h"
#include "bifrost/wire/frame.h"
#include "bifrost/wire/pcap.h"

namespace {

using namespace bifrost::wire;

constexpr std::string_view kUsage =
    "usage: bifrost-wire-demo [--help] [PCAP]\n"
    "\n"
    "Writes a scripted RoCEv2 exchange between two hosts (every RC, UC and UD opcode, ACK,\n"
    "RNR NAK, NAK, a PSN wrap) to PCAP (default: bifrost-demo.pcap), reads it back, decodes\n"
    "every frame and prints a table. Open the file with: wireshark PCAP\n";

std::string ipv4(uint32_t ip) {
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
}

std::string describe_aeth(const Aeth& aeth) {
  switch (ack_kind(aeth)) {
    case AckKind::kAck:
      return fmt::format("AETH ACK credits={} msn={}", syndrome_value(aeth), aeth.msn);
    case AckKind::kRnrNak:
      return fmt::format("AETH RNR-NAK timer={} msn={}", syndrome_value(aeth), aeth.msn);
    case AckKind::kNak: {
      static constexpr std::string_view kCodes[] = {"psn-sequence-error", "invalid-request",
                                                    "remote-access-error", "remote-op-error"};
      const uint8_t code = syndrome_value(aeth);
      return fmt::format("AETH NAK {} msn={}", code < 4 ? kCodes[code] : "reserved", aeth.msn);
    }
    case AckKind::kReserved:
      break;
  }
  return fmt::format("AETH syndrome=0x{:02x} msn={}", aeth.syndrome, aeth.msn);
}

std::string details(const FrameView& frame) {
  const RoceHeaders& h = frame.roce.headers;
  const HeaderChain chain = header_chain(h.bth.opcode);
  std::string out;
  const auto add = [&out](const std::string& part) {
    if (!out.empty()) out += "  ";
    out += part;
  };
  if (chain.deth) add(fmt::format("DETH qkey=0x{:08x} srcqp=0x{:06x}", h.deth.qkey, h.deth.src_qp));
  if (chain.reth) {
    add(fmt::format("RETH va=0x{:x} rkey=0x{:08x} len={}", h.reth.virtual_address, h.reth.rkey,
                    h.reth.dma_length));
  }
  if (chain.aeth) add(describe_aeth(h.aeth));
  if (chain.immdt) add(fmt::format("imm=0x{:08x}", h.immediate));
  if (h.bth.solicited) add("SE");
  if (h.bth.ack_request) add("AckReq");
  if (frame.ip.ecn == 3) add("ECN-CE");
  return out;
}

int run(const std::string& path) {
  const std::vector<DemoFrame> script = demo_exchange();
  write_demo_pcap(path, script);

  PcapReader reader(path);
  if (reader.linktype() != kLinktypeEthernet) {
    throw bifrost::Error("'{}': link type {} is not Ethernet", path, reader.linktype());
  }
  fmt::print("{:>3} {:>10}  {:<21} {:<33} {:<8} {:<8} {:>5}  {:<4} {}\n", "#", "time/us",
             "src -> dst", "opcode", "dest QP", "PSN", "len", "ICRC", "headers");
  std::size_t frames = 0;
  std::size_t decoded = 0;
  std::size_t icrc_bad = 0;
  bool opcodes_seen[256] = {};
  uint64_t first_ns = 0;
  std::string_view step;
  while (const auto record = reader.next()) {
    if (frames == 0) first_ns = record->time_ns;
    if (record->index < script.size() && script[record->index].step != step) {
      step = script[record->index].step;
      fmt::print("-- {}\n", step);
    }
    ++frames;
    const double time_us = static_cast<double>(record->time_ns - first_ns) / 1000.0;
    const auto frame = decode_ethernet_frame(record->data);
    if (!frame) {
      if (frame.error == WireError::kIcrcMismatch) ++icrc_bad;
      fmt::print("{:>3} {:>10.3f}  decode error: {}\n", record->index + 1, time_us,
                 describe(frame.error));
      continue;
    }
    ++decoded;
    const FrameView& f = frame.value;
    const Bth& bth = f.roce.headers.bth;
    opcodes_seen[static_cast<uint8_t>(bth.opcode)] = true;
    std::string row = fmt::format(
        "{:>3} {:>10.3f}  {:<21} {:<33} 0x{:06x} 0x{:06x} {:>5}  {:<4} {}", record->index + 1,
        time_us, ipv4(f.ip.src_ip) + " -> " + ipv4(f.ip.dst_ip), opcode_name(bth.opcode),
        bth.dest_qp, bth.psn, f.roce.payload.size(), "ok", details(f));
    row.erase(row.find_last_not_of(' ') + 1);
    fmt::print("{}\n", row);
  }
  std::size_t opcodes = 0;
  for (bool seen : opcodes_seen) opcodes += seen ? 1 : 0;
  const std::size_t errors = frames - decoded;
  fmt::print(
      "{}: {} frames, {} decoded, {} distinct opcodes, {} ICRC ok, {} ICRC bad, {} "
      "errors\n",
      path, frames, decoded, opcodes, decoded, icrc_bad, errors);
  return errors == 0 && frames == script.size() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "bifrost-demo.pcap";
  bool have_path = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      fmt::print(stderr, "bifrost-wire-demo: unknown option '{}'\n{}", arg, kUsage);
      return 2;
    }
    if (have_path) {
      fmt::print(stderr, "bifrost-wire-demo: expected at most one PCAP path, got '{}' too\n{}", arg,
                 kUsage);
      return 2;
    }
    path = arg;
    have_path = true;
  }
  try {
    return run(path);
  } catch (const bifrost::Error& e) {
    fmt::print(stderr, "bifrost-wire-demo: error: {}\n", e.what());
    return 1;
  }
}
