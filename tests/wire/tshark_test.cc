// Interoperability: Wireshark's dissectors (through tshark) must read our frames exactly as we
// meant them, field by field, with valid IPv4 and UDP checksums.
//
// tshark 4.0 shows the ICRC (infiniband.invariant.crc) as the four wire bytes read big-endian
// but does not verify it; the ICRC's value is checked by icrc_python_test.cc and by the hardware
// vectors in icrc_test.cc. Here tshark confirms where the ICRC sits (after payload and pad).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bifrost/wire/demo_exchange.h"
#include "bifrost/wire/frame.h"
#include "bifrost/wire/pcap.h"
#include "samples.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

const std::vector<std::string> kFields = {
    "frame.number",
    "ip.src",
    "ip.dst",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.ttl",
    "ip.id",
    "ip.checksum.status",
    "udp.srcport",
    "udp.dstport",
    "udp.checksum.status",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.tver",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome",
    "infiniband.aeth.msn",
    "infiniband.immdt",
    "infiniband.deth.q_key",
    "infiniband.deth.srcqp",
    "infiniband.invariant.crc",
    "_ws.expert",
};

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!line.empty() && line.back() == separator) parts.emplace_back();
  return parts;
}

std::string ipv4(uint32_t ip) {
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
}

std::string flag(bool set) {
  return set ? "1" : "0";
}

uint32_t byteswap(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
}

// What tshark should print for each field of `frame`, in kFields order.
std::vector<std::string> expected_fields(std::size_t number, const DemoFrame& frame,
                                         uint32_t carried_icrc) {
  const RoceHeaders& h = frame.roce;
  const HeaderChain chain = header_chain(h.bth.opcode);
  const auto when = [](bool present, std::string text) { return present ? text : std::string(); };
  return {
      std::to_string(number),
      ipv4(frame.ip.src_ip),
      ipv4(frame.ip.dst_ip),
      std::to_string(frame.ip.dscp),
      std::to_string(frame.ip.ecn),
      std::to_string(frame.ip.ttl),
      fmt::format("0x{:04x}", frame.ip.ip_id),
      "1",  // checksum status Good
      std::to_string(frame.ip.src_port),
      "4791",
      "1",
      std::to_string(static_cast<int>(h.bth.opcode)),
      flag(h.bth.solicited),
      flag(h.bth.migration),
      std::to_string(h.bth.pad_count),
      "0",
      std::to_string(h.bth.pkey),
      fmt::format("0x{:06x}", h.bth.dest_qp),
      flag(h.bth.ack_request),
      std::to_string(h.bth.psn),
      when(chain.reth, fmt::format("0x{:016x}", h.reth.virtual_address)),
      when(chain.reth, fmt::format("0x{:08x}", h.reth.rkey)),
      when(chain.reth, std::to_string(h.reth.dma_length)),
      when(chain.aeth, std::to_string(h.aeth.syndrome)),
      when(chain.aeth, std::to_string(h.aeth.msn)),
      when(chain.immdt, fmt::format("{:08x}", h.immediate)),
      when(chain.deth, fmt::format("0x{:016x}", h.deth.qkey)),
      when(chain.deth, fmt::format("0x{:08x}", h.deth.src_qp)),
      fmt::format("0x{:08x}", byteswap(carried_icrc)),
      "",  // no expert info: nothing malformed, no warnings
  };
}

TEST(WireTshark, DissectsEveryDemoFrameFieldByField) {
  ASSERT_TRUE(test::on_path("tshark"))
      << "tshark is not installed; run scripts/setup.sh to install the test dependencies";
  test::ScratchDir dir;
  const std::string pcap = dir.file("demo.pcap");
  const auto frames = demo_exchange();
  write_demo_pcap(pcap, frames);

  std::string command = "tshark -n -r " + test::quote(pcap) +
                        " -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE"
                        " -T fields -E separator=, -E occurrence=f";
  for (const auto& field : kFields) command += " -e " + field;
  const auto result = test::run_command(command + " 2>/dev/null");
  ASSERT_EQ(result.exit_code, 0) << command;

  std::string output = result.output;
  if (!output.empty() && output.back() == '\n') output.pop_back();
  const auto lines = split(output, '\n');
  ASSERT_EQ(lines.size(), frames.size()) << result.output;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto bytes = encode_demo_frame(frames[i]);
    const auto decoded = decode_ethernet_frame(bytes);
    ASSERT_TRUE(decoded.ok()) << describe(decoded.error);
    const auto want = expected_fields(i + 1, frames[i], decoded.value.roce.icrc);
    const auto got = split(lines[i], ',');
    ASSERT_EQ(got.size(), kFields.size()) << "frame " << i + 1 << ": " << lines[i];
    for (std::size_t f = 0; f < kFields.size(); ++f) {
      EXPECT_EQ(got[f], want[f]) << "frame " << i + 1 << " ("
                                 << opcode_name(frames[i].roce.bth.opcode) << ") field "
                                 << kFields[f];
    }
  }
}

TEST(WireTshark, ReadsCnpsAsWeAndTheHardwareWriteThem) {
  // Wireshark 4.0 has no CNP dissector: it shows opcode 129 as unknown with a full BTH, and the
  // 16 reserved bytes plus the ICRC as one opaque block. That still pins the BTH fields (BECN is
  // byte 4, shown as "reserved" 0x40) and the length of what follows.
  ASSERT_TRUE(test::on_path("tshark"))
      << "tshark is not installed; run scripts/setup.sh to install the test dependencies";
  test::ScratchDir dir;
  const std::string pcap = dir.file("cnp.pcap");
  const IpUdpInfo ip{0x0A000002, 0x0A000001, 0xC123, kRoceV2UdpPort, 48, 2, 64, 0x0042};
  const EthernetHeader eth{{0x02, 0, 0, 0, 0, 0x0A}, {0x02, 0, 0, 0, 0, 0x0B}, kEtherTypeIpv4};
  std::vector<std::byte> ours(ethernet_frame_size(Opcode::kCnp, 0));
  ASSERT_TRUE(encode_ethernet_frame(eth, ip, make_cnp(0xABCDEF, 0x8001), {}, ours).ok());
  const auto icrc = decode_ethernet_frame(ours).value.roce.icrc;
  {
    PcapWriter writer(pcap);
    writer.write(0, test::hardware_cnp_frame());
    writer.write(1000, ours);
    writer.close();
  }
  const auto result = test::run_command(
      "tshark -n -r " + test::quote(pcap) +
      " -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -T fields -E separator=,"
      " -E occurrence=l -e ip.checksum.status -e udp.checksum.status -e infiniband.bth.opcode"
      " -e infiniband.bth.se -e infiniband.bth.m -e infiniband.bth.p_key -e infiniband.reserved"
      " -e infiniband.bth.destqp -e infiniband.bth.a -e infiniband.bth.psn -e infiniband.vendor"
      " -e _ws.expert 2>/dev/null");
  ASSERT_EQ(result.exit_code, 0);
  const std::string reserved(32, '0');
  EXPECT_EQ(
      result.output,
      // UDP checksum status 3: not present (zero), as the NIC sends it.
      "1,3,129,0,0,65535,40,0x000118,0,0," + reserved + "82fd002a,\n" +
          fmt::format("1,1,129,0,0,32769,40,0xabcdef,0,0,{}{:08x},\n", reserved, byteswap(icrc)));
}

TEST(WireTshark, FlagsABadUdpChecksum) {
  // Guards the test above: checksum validation must really be on.
  ASSERT_TRUE(test::on_path("tshark"))
      << "tshark is not installed; run scripts/setup.sh to install the test dependencies";
  test::ScratchDir dir;
  const std::string pcap = dir.file("bad.pcap");
  const auto frames = demo_exchange();
  {
    auto bytes = encode_demo_frame(frames[0]);
    bytes[14 + 26] ^= std::byte{0x01};
    PcapWriter writer(pcap);
    writer.write(frames[0].time_ns, bytes);
    writer.close();
  }
  const auto result = test::run_command("tshark -n -r " + test::quote(pcap) +
                                        " -o udp.check_checksum:TRUE -T fields"
                                        " -e udp.checksum.status 2>/dev/null");
  EXPECT_EQ(result.output, "0\n");  // 0 is Bad
}

}  // namespace
}  // namespace bifrost::wire
