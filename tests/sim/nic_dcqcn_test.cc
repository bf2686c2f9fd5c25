// [nic] dcqcn_* keys: DCQCN's constants are parsed and checked, and the scenario's defaults are
// rnic::DcqcnConfig's.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/rnic/cc/dcqcn.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using testing::parse;

std::string star_with_nic(const std::string& nic_extra) {
  return R"(
[simulation]
mtu = 1024
[topology]
kind = "star"
hosts = 3
host_rate = "25Gbps"
[nic]
model = "rnic"
)" + nic_extra;
}

TEST(NicDcqcn, DefaultsAreTheRnicsDefaults) {
  const scenario::DcqcnSpec s;
  const rnic::DcqcnConfig c;
  EXPECT_EQ(s.g, c.g);
  EXPECT_EQ(s.min_rate, c.min_rate);
  EXPECT_EQ(s.alpha_update_period, c.alpha_update_period);
  EXPECT_EQ(s.rate_reduce_period, c.rate_reduce_monitor_period);
  EXPECT_EQ(s.increase_period, c.increase_period);
  EXPECT_EQ(s.increase_bytes.count(), c.increase_bytes);
  EXPECT_EQ(s.fast_recovery_stages, c.fast_recovery_stages);
  EXPECT_EQ(s.additive_increase, c.additive_increase);
  EXPECT_EQ(s.hyper_increase, c.hyper_increase);
  EXPECT_EQ(s.cnp_interval, rnic::kDcqcnMinTimeBetweenCnps);
}

TEST(NicDcqcn, KeysAreParsed) {
  const auto sc = parse(star_with_nic(R"(dcqcn = true
dcqcn_g = 0.00390625
dcqcn_min_rate = "100Mbps"
dcqcn_alpha_update_period = "55us"
dcqcn_rate_reduce_period = "50us"
dcqcn_increase_period = "55us"
dcqcn_increase_bytes = "10MB"
dcqcn_fast_recovery_stages = 1
dcqcn_additive_increase = "40Mbps"
dcqcn_hyper_increase = "100Mbps"
dcqcn_cnp_interval = "50us"
dcqcn_cnp_scope = "port"
)"));
  const scenario::DcqcnSpec& d = sc.nic.dcqcn_spec;
  EXPECT_EQ(d.g, 1.0 / 256);
  EXPECT_EQ(d.min_rate, Rate::Mbps(100));
  EXPECT_EQ(d.alpha_update_period, Time::us(55));
  EXPECT_EQ(d.rate_reduce_period, Time::us(50));
  EXPECT_EQ(d.increase_period, Time::us(55));
  EXPECT_EQ(d.increase_bytes, Bytes(10'000'000));
  EXPECT_EQ(d.fast_recovery_stages, 1u);
  EXPECT_EQ(d.additive_increase, Rate::Mbps(40));
  EXPECT_EQ(d.hyper_increase, Rate::Mbps(100));
  EXPECT_EQ(d.cnp_interval, Time::us(50));
  EXPECT_TRUE(d.cnp_interval_per_port);
  EXPECT_FALSE(scenario::DcqcnSpec{}.cnp_interval_per_port) << "per QP by default";
}

TEST(NicDcqcn, BadValuesAreErrors) {
  using bifrost::testing::error_of;
  EXPECT_NE(error_of([] {
              parse(star_with_nic("dcqcn_g = 0.01\n"));
            }).find("nic.dcqcn_g: is a DCQCN constant; DCQCN is off (set dcqcn = true)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(star_with_nic("dcqcn = true\ndcqcn_g = 1.5\n"));
            }).find("nic.dcqcn_g: 1.5 is not in (0, 1)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(star_with_nic("dcqcn = true\ndcqcn_fast_recovery_stages = 0\n"));
            }).find("nic.dcqcn_fast_recovery_stages"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(star_with_nic("dcqcn = true\ndcqcn_cnp_scope = \"flow\"\n"));
            }).find("valid choices: qp, port"),
            std::string::npos);
}

}  // namespace
}  // namespace bifrost::sim
