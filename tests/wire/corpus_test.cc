// The fuzz corpora's seed inputs (fuzz/corpus/decode, fuzz/corpus/pcap) are generated here from
// the demo exchange, so they stay in step with the codec. The test fails when a committed seed
// differs from what the generator makes; rerun it with BIFROST_WRITE_CORPUS=1 to rewrite them:
//   BIFROST_WRITE_CORPUS=1 ctest --test-dir <build> -R WireFuzzCorpus
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bifrost/wire/demo_exchange.h"
#include "bifrost/wire/frame.h"
#include "bifrost/wire/pcap.h"
#include "samples.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

using Seeds = std::map<std::string, std::vector<std::byte>>;

std::string slug(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '_' ? '-' : static_cast<char>(std::tolower(c));
  return out;
}

// Valid frames (first use of each opcode, plus each NAK kind) and malformed variants, each
// named for what it exercises. Names starting with "bad-" or "cut-" must fail to decode.
Seeds decode_seeds() {
  const auto frames = demo_exchange();
  Seeds seeds;
  std::set<uint16_t> seen;
  for (const DemoFrame& f : frames) {
    const auto op = static_cast<uint8_t>(f.roce.bth.opcode);
    const uint16_t key = static_cast<uint16_t>(op << 8 | f.roce.aeth.syndrome);
    const bool is_ack = f.roce.bth.opcode == Opcode::kRcAcknowledge;
    if (!seen.insert(is_ack ? key : uint16_t(op << 8)).second) continue;
    seeds["frame-" + slug(opcode_name(f.roce.bth.opcode)) +
          (is_ack ? "-syndrome-" + std::to_string(f.roce.aeth.syndrome) : "")] =
        encode_demo_frame(f);
  }
  const auto send = encode_demo_frame(frames[4]);    // RC SEND only with 3 pad bytes
  const auto write = encode_demo_frame(frames[11]);  // RC WRITE only
  const auto ud = encode_demo_frame(frames.back());  // UD SEND only with immediate
  seeds["udp-payload-rc-write-only"] = {write.begin() + 42, write.end()};
  seeds["udp-payload-ud-send-only-imm"] = {ud.begin() + 42, ud.end()};
  seeds["ipv4-packet-rc-send-only"] = {send.begin() + 14, send.end()};
  // A WRITE middle packet with bifrost's SR extension (BTH reserved bit + 24 bytes).
  RoceHeaders sr;
  sr.bth.opcode = Opcode::kRcWriteMiddle;
  sr.bth.dest_qp = 0x12;
  sr.bth.psn = 0x345;
  sr.sr = SrExtension{true, 0x10000000, 0xABCD, 4096, 0xFFFFFFFF, 1024};
  const std::vector<std::byte> payload(16, std::byte{0x5A});
  std::vector<std::byte> extended(udp_payload_size(sr, payload.size()));
  EXPECT_TRUE(encode_udp_payload(test::sample_ip(), sr, payload, extended).ok());
  seeds["udp-payload-rc-write-middle-sr-extension"] = extended;
  seeds["cut-in-udp-header"] = {send.begin(), send.begin() + 40};
  seeds["cut-in-bth"] = {send.begin(), send.begin() + 48};
  seeds["cut-in-reth"] = {write.begin(), write.begin() + 60};
  auto bad_icrc = send;
  bad_icrc.back() ^= std::byte{0x80};
  seeds["bad-icrc"] = bad_icrc;
  auto options = send;
  options[14] = std::byte{0x46};
  seeds["bad-ip-options"] = options;
  auto fragment = send;
  fragment[14 + 6] = std::byte{0x20};
  seeds["bad-ip-fragment"] = fragment;
  // A CNP captured from a ConnectX-4 Lx: real hardware bytes, and the one opcode the demo
  // exchange does not send.
  seeds["frame-hardware-cnp"] = test::hex_bytes(
      "e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2 003c 718c 4000 4011 9161 0a00 1101 0a00"
      "1201 0000 12b7 0028 0000 8100 ffff 4000 0118 0000 0000 0000 0000 0000 0000 0000"
      "0000 0000 0000 82fd 002a");
  return seeds;
}

std::vector<std::byte> pcap_bytes(const std::vector<DemoFrame>& frames) {
  test::ScratchDir dir;
  const std::string path = dir.file("seed.pcap");
  write_demo_pcap(path, frames);
  return test::read_bytes(path);
}

Seeds pcap_seeds() {
  const auto frames = demo_exchange();
  Seeds seeds;
  const auto all = pcap_bytes(frames);
  seeds["demo-exchange.pcap"] = all;
  seeds["one-frame.pcap"] = pcap_bytes({frames[0]});
  seeds["header-only.pcap"] = {all.begin(), all.begin() + 24};
  seeds["cut-file-header.pcap"] = {all.begin(), all.begin() + 10};
  seeds["cut-record-header.pcap"] = {all.begin(), all.begin() + 24 + 8};
  seeds["cut-record-data.pcap"] = {all.begin(), all.begin() + 24 + 16 + 30};
  seeds["microsecond-big-endian.pcap"] = test::hex_bytes(
      "a1 b2 c3 d4 00 02 00 04 00 00 00 00 00 00 00 00 00 00 ff ff 00 00 00 01"
      "00 00 00 05 00 0f 42 3f 00 00 00 01 00 00 00 01 99");
  return seeds;
}

void check_or_write(const std::string& target, const Seeds& seeds) {
  const auto dir = test::source_dir() / "fuzz" / "corpus" / target;
  const bool write = std::getenv("BIFROST_WRITE_CORPUS") != nullptr;
  if (write) std::filesystem::create_directories(dir);
  for (const auto& [name, bytes] : seeds) {
    const std::string path = (dir / ("seed-" + name)).string();
    if (write) {
      test::write_bytes(path, bytes);
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(path))
        << path << " is missing; regenerate with BIFROST_WRITE_CORPUS=1";
    EXPECT_EQ(test::read_bytes(path), bytes)
        << path << " is stale; regenerate with BIFROST_WRITE_CORPUS=1";
  }
}

TEST(WireFuzzCorpus, DecodeSeedsAreCommittedAndUpToDate) {
  check_or_write("decode", decode_seeds());
}

TEST(WireFuzzCorpus, PcapSeedsAreCommittedAndUpToDate) {
  check_or_write("pcap", pcap_seeds());
}

TEST(WireFuzzCorpus, DecodeSeedsDecodeAsNamed) {
  for (const auto& [name, bytes] : decode_seeds()) {
    const bool bad = name.rfind("bad-", 0) == 0 || name.rfind("cut-", 0) == 0;
    bool ok = false;
    if (name.rfind("udp-payload-", 0) == 0) {
      ok = decode_udp_payload(bytes).ok();
    } else if (name.rfind("ipv4-packet-", 0) == 0) {
      ok = decode_ipv4_packet(bytes).ok();
    } else {
      ok = decode_ethernet_frame(bytes).ok();
    }
    EXPECT_EQ(ok, !bad) << name;
  }
  EXPECT_GE(decode_seeds().size(), 12u);
}

}  // namespace
}  // namespace bifrost::wire
