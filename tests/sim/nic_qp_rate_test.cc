// [nic] qp_rate paces every plain flow's sender QP below the line rate (the FaSR paper's "sender
// load set to 90%"), and [nic] fasr_lean_header gives FaSR's requests the paper's lean SR header.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;
using testing::parse;
using testing::run;

// 12 flows of 100 KB, every ordered pair of 4 hosts on a lossless 100 Gb/s star: each host sends
// three at once, so at line rate they share its link (3 x 100 KB in about 25 us).
std::string all_pairs(const std::string& nic) {
  return testing::lossy_star_all_to_all(1, "0", nic, "100KB");
}

// When the last flow finished (the run itself ends on the metrics' sampling grid).
Time last_finish(const RunSummary& run) {
  Time last = Time::zero();
  for (const metrics::FlowRecord& f : run.metrics.flows.records()) {
    if (f.finish) last = std::max(last, *f.finish);
  }
  return last;
}

TEST(NicQpRate, EachSenderQpKeepsToItsRate) {
  const RunSummary line = run(all_pairs("recovery = \"fasr\"\n"));
  const RunSummary paced = run(all_pairs("recovery = \"fasr\"\nqp_rate = \"10Gbps\"\n"));
  ASSERT_EQ(line.finished, 12u);
  ASSERT_EQ(paced.finished, 12u);
  EXPECT_LT(last_finish(line), Time::us(40));
  // 100 KB of payload plus headers at 10 Gb/s is more than 80 us.
  EXPECT_GT(last_finish(paced), Time::us(80));
  EXPECT_LT(last_finish(paced), Time::us(100));
}

TEST(NicQpRate, IsParsedAndRefusedWhereItCannotApply) {
  EXPECT_EQ(parse(all_pairs("qp_rate = \"180Gbps\"\n")).nic.qp_rate, Rate::Gbps(180));
  EXPECT_FALSE(parse(all_pairs("")).nic.qp_rate.has_value());
  std::string line_rate = all_pairs("qp_rate = \"1Gbps\"\n");
  line_rate.replace(line_rate.find("model = \"rnic\""), 14, "model = \"line_rate\"");
  EXPECT_NE(error_of([&] { parse(line_rate); }).find("nic.qp_rate: paces soft RNIC QPs"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(all_pairs("dcqcn = true\nqp_rate = \"1Gbps\"\n") +
                    "[switch.ecn]\nkmin = \"5KB\"\nkmax = \"100KB\"\npmax = 0.01\n");
            }).find("nic.qp_rate: is a fixed pace"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(all_pairs("qp_rate = \"1Gbps\"\n") + "[transport]\nkind = \"bifrost-uc\"\n");
            }).find("nic.qp_rate: paces plain RC or UC flows"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse(all_pairs("qp_rate = \"0Gbps\"\n")); }).find("nic.qp_rate"),
            std::string::npos);
}

TEST(NicFasrLeanHeader, ShorterRequestsFinishSooner) {
  const RunSummary full = run(all_pairs("recovery = \"fasr\"\n"));
  const RunSummary lean = run(all_pairs("recovery = \"fasr\"\nfasr_lean_header = true\n"));
  ASSERT_EQ(full.finished, 12u);
  ASSERT_EQ(lean.finished, 12u);
  // 18 bytes less per 1,024-byte packet: about 1.6% less time on the wire.
  EXPECT_LT(last_finish(lean), last_finish(full));
  EXPECT_GT(last_finish(lean).picoseconds(), last_finish(full).picoseconds() * 95 / 100);
}

TEST(NicFasrLeanHeader, IsFasrsOnly) {
  EXPECT_TRUE(
      parse(all_pairs("recovery = \"fasr\"\nfasr_lean_header = true\n")).nic.fasr_lean_header);
  EXPECT_NE(error_of([] {
              parse(all_pairs("recovery = \"irn\"\nfasr_lean_header = true\n"));
            }).find("nic.fasr_lean_header: sizes FaSR's headers; recovery is \"irn\""),
            std::string::npos);
}

}  // namespace
}  // namespace bifrost::sim
