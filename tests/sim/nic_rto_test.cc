// [nic] rto_low / rto_high: IRN's two retransmission timeouts (the paper's 600 km setting is
// 6,017 / 7,075 us against the defaults 100 / 320 us) reach the engines and decide when a lost
// tail is resent.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/rnic/recovery/engine.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::run;

// Every ordered pair of 4 hosts on a star sends one 1 KB message (one packet) over IRN soft
// RNICs; each host link loses 20% of the frames in each direction, so some messages lose their
// only packet or its ACK, and only a timeout can resend it.
std::string lossy_single_packets(const std::string& nic_extra) {
  return testing::lossy_star_all_to_all(3, "0.2", "recovery = \"irn\"\n" + nic_extra, "1KB");
}

TEST(NicRto, DefaultsAreTheEnginesDefaults) {
  const scenario::NicConfig nic;
  const rnic::recovery::RecoveryConfig engine;
  EXPECT_EQ(nic.rto_low, engine.rto_low);
  EXPECT_EQ(nic.rto_high, engine.rto_high);
}

TEST(NicRto, KeysAreParsedForIrnAndFasr) {
  const auto sc = parse(lossy_single_packets("rto_low = \"6017us\"\nrto_high = \"7075us\"\n"));
  EXPECT_EQ(sc.nic.rto_low, Time::us(6017));
  EXPECT_EQ(sc.nic.rto_high, Time::us(7075));
  std::string fasr = lossy_single_packets("rto_low = \"1ms\"\nrto_high = \"2ms\"\n");
  fasr.replace(fasr.find("\"irn\""), 5, "\"fasr\"");
  EXPECT_EQ(parse(fasr).nic.rto_low, Time::ms(1));
  EXPECT_EQ(parse(fasr).nic.rto_high, Time::ms(2));
  EXPECT_EQ(parse(lossy_single_packets("rto_high = \"7075us\"\n")).nic.rto_low, Time::us(100))
      << "an unset timeout keeps its default";
}

TEST(NicRto, BadValuesAreErrors) {
  using bifrost::testing::error_of;
  EXPECT_NE(
      error_of([] { parse(lossy_single_packets("rto_low = \"0us\"\n")); }).find("nic.rto_low"),
      std::string::npos);
  std::string srnic = lossy_single_packets("rto_high = \"1ms\"\n");
  srnic.replace(srnic.find("\"irn\""), 5, "\"srnic\"");
  EXPECT_NE(error_of([&] {
              parse(srnic);
            }).find("nic.rto_high: is a timeout of irn and fasr; recovery is \"srnic\""),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(lossy_single_packets("rto_low = \"500us\"\n"));
            }).find("rto_high (320us) is below rto_low (500us)"),
            std::string::npos)
      << "a lone rto_low above the default rto_high";
}

// With every message one packet, a lost packet or ACK is recovered by RTO_low alone: the run
// lasts at least one RTO_low, and a long one stretches it accordingly.
TEST(NicRto, TheTimeoutDecidesWhenALostTailIsResent) {
  const RunSummary fast = run(lossy_single_packets(""));
  const RunSummary slow = run(lossy_single_packets("rto_low = \"5ms\"\nrto_high = \"5ms\"\n"));
  ASSERT_GT(fast.timeouts, 0u) << "the losses must need a timeout, or this test shows nothing";
  EXPECT_EQ(fast.finished, fast.flows);
  EXPECT_EQ(slow.finished, slow.flows);
  EXPECT_GT(slow.timeouts, 0u);
  EXPECT_GE(fast.simulated, Time::us(100));
  EXPECT_LT(fast.simulated, Time::ms(5));
  EXPECT_GE(slow.simulated, Time::ms(5));
}

}  // namespace
}  // namespace bifrost::sim
