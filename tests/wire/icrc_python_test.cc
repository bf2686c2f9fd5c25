// Cross-checks bifrost's ICRC with tests/wire/icrc_check.py, an independent implementation of
// the RoCEv2 masking rules on top of Python's zlib.crc32.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "bifrost/wire/demo_exchange.h"
#include "bifrost/wire/pcap.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

test::CommandResult run_checker(const std::string& pcap) {
  const std::string script = (test::source_dir() / "tests/wire/icrc_check.py").string();
  return test::run_command(std::string(kPython) + " " + test::quote(script) + " " +
                           test::quote(pcap) + " 2>&1");
}

class WireIcrcPython : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test::run_command(std::string(kPython) + " -c 'import zlib'").exit_code == 0)
        << kPython << " with zlib is required for this test: run scripts/setup.sh";
  }
};

TEST_F(WireIcrcPython, EveryDemoFrameMatchesTheIndependentChecker) {
  test::ScratchDir dir;
  const std::string pcap = dir.file("demo.pcap");
  const auto frames = demo_exchange();
  write_demo_pcap(pcap, frames);
  const auto result = run_checker(pcap);
  const std::string n = std::to_string(frames.size());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("checked " + n + " frames: " + n + " ok, 0 mismatched"),
            std::string::npos)
      << result.output;
}

TEST_F(WireIcrcPython, CheckerAgreesWithAHardwareCapturedFrame) {
  // A RoCEv2 CNP from a ConnectX-4 Lx (see icrc_test.cc): the checker must accept real hardware.
  test::ScratchDir dir;
  const std::string pcap = dir.file("cnp.pcap");
  {
    PcapWriter writer(pcap);
    writer.write(0, test::hex_bytes("e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2"
                                    "003c 718c 4000 4011 9161 0a00 1101 0a00"
                                    "1201 0000 12b7 0028 0000 8100 ffff 4000"
                                    "0118 0000 0000 0000 0000 0000 0000 0000"
                                    "0000 0000 0000 82fd 002a"));
    writer.close();
  }
  const auto result = run_checker(pcap);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("frame 1: ok 0x2a00fd82"), std::string::npos) << result.output;
}

TEST_F(WireIcrcPython, CheckerRejectsCorruptedAndByteSwappedIcrcs) {
  test::ScratchDir dir;
  const std::string pcap = dir.file("bad.pcap");
  const auto frames = demo_exchange();
  {
    PcapWriter writer(pcap);
    auto corrupted = encode_demo_frame(frames[0]);
    corrupted[60] ^= std::byte{0x01};  // a payload byte
    writer.write(frames[0].time_ns, corrupted);
    auto swapped = encode_demo_frame(frames[1]);
    std::reverse(swapped.end() - 4, swapped.end());  // ICRC written most significant byte first
    writer.write(frames[1].time_ns, swapped);
    writer.write(frames[2].time_ns, encode_demo_frame(frames[2]));
    writer.close();
  }
  const auto result = run_checker(pcap);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("checked 3 frames: 1 ok, 2 mismatched"), std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace bifrost::wire
