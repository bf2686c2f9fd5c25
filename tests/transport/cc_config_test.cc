// The congestion-control configuration: kinds by name, every kind built, the defaults equal to
// the parameters each algorithm derived from the path before blocks existed, overrides
// reaching the algorithm, and validation of the block in force.
#include "bifrost/transport/cc/cc_config.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/transport/config.h"

namespace bifrost::transport {
namespace {

constexpr CcKind kKinds[] = {CcKind::swift,  CcKind::swift_md, CcKind::dcqcn, CcKind::vegas,
                             CcKind::timely, CcKind::dctcp,    CcKind::none};

// Every field, so that two parameter sets compare field by field.
auto fields(const SwiftParams& p) {
  return std::tie(p.target_delay, p.target_slack, p.additive_increase, p.beta, p.max_decrease,
                  p.min_window, p.max_window, p.initial_window, p.mss, p.loss_to_minimum,
                  p.target_follows_min_rtt, p.loss_needs_queuing);
}
auto fields(const DcqcnParams& p) {
  const rnic::DcqcnConfig& rp = p.rp;
  return std::tie(rp.line_rate, rp.min_rate, rp.g, rp.initial_alpha, rp.alpha_update_period,
                  rp.rate_reduce_monitor_period, rp.increase_period, rp.increase_bytes,
                  rp.fast_recovery_stages, rp.additive_increase, rp.hyper_increase,
                  p.min_time_between_cnps, p.base_rtt, p.mss);
}

// Paths of different shapes: the default, a short fast one with a small unit, a slow one.
std::vector<TransportConfig> paths() {
  TransportConfig fast;
  fast.base_rtt = Time::us(8);
  fast.unit_size = 1024;
  fast.line_rate_bps = 400'000'000'000;
  TransportConfig slow;
  slow.base_rtt = Time::us(200);
  slow.line_rate_bps = 10'000'000'000;
  return {TransportConfig{}, fast, slow};
}

TEST(CcKind, NamesRoundTripAndAnUnknownNameListsTheKnownOnes) {
  for (const CcKind kind : kKinds) EXPECT_EQ(parse_cc_kind(to_string(kind)), kind);
  EXPECT_EQ(to_string(CcKind::swift_md), "swift-md");
  try {
    (void)parse_cc_kind("cubic");
    FAIL() << "an unknown name must throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown congestion control 'cubic' (known: swift, swift-md, dcqcn, vegas, timely, "
              "dctcp, none)");
  }
}

TEST(CcConfig, EveryKindBuildsUnderItsName) {
  const TransportConfig config;
  for (const CcKind kind : kKinds) {
    const CcConfig cc{.kind = kind};
    cc.validate(config.cc_params());
    EXPECT_EQ(make_congestion_control(cc, config.cc_params())->name(), to_string(kind));
  }
}

TEST(CcConfig, ThePathIsTheOneTheSenderDerivedBefore) {
  for (const TransportConfig& c : paths()) {
    const CcParams path = c.cc_params();
    EXPECT_EQ(path.base_rtt, c.base_rtt);
    EXPECT_EQ(path.bdp_bytes, static_cast<uint64_t>(static_cast<double>(c.line_rate_bps) / 8 *
                                                    c.base_rtt.seconds()));
    EXPECT_EQ(path.mss, c.unit_size);
    EXPECT_EQ(path.line_rate, Rate::bps(static_cast<int64_t>(c.line_rate_bps)));
  }
}

TEST(CcConfig, DefaultBlocksGiveTheParametersDerivedFromThePath) {
  for (const TransportConfig& c : paths()) {
    const CcParams path = c.cc_params();
    const CcConfig swift{};
    EXPECT_EQ(fields(swift.swift_params(path)), fields(swift_params_for(path)));
    SwiftParams md = swift_params_for(path);
    md.loss_to_minimum = false;  // what "swift-md" set on top of swift's
    EXPECT_EQ(fields(CcConfig{.kind = CcKind::swift_md}.swift_params(path)), fields(md));
    EXPECT_EQ(fields(CcConfig{.kind = CcKind::dcqcn}.dcqcn_params(path)),
              fields(dcqcn_params_for(path)));
  }
}

TEST(CcConfig, VegasTakesItsPacketAndRatesFromThePath) {
  TransportConfig c;
  c.unit_size = 2048;
  c.line_rate_bps = 40'000'000'000;
  const VegasParams p = CcConfig{.kind = CcKind::vegas}.vegas_params(c.cc_params());
  EXPECT_EQ(p.packet_bytes, 2048u);
  EXPECT_EQ(p.line_rate, Rate::Gbps(40));
  EXPECT_EQ(p.rate_step, Rate::Gbps(4));
  EXPECT_EQ(p.max_window_bytes, 4 * c.cc_params().bdp_bytes);
  EXPECT_EQ(p.alpha, 2);  // the block's own fields keep Vegas's defaults
  EXPECT_EQ(p.initial_window_packets, 10u);
  // A larger initial window raises the derived cap with it; an override replaces the cap.
  CcConfig big{.kind = CcKind::vegas};
  big.vegas.params.initial_window_packets = 1000;
  EXPECT_EQ(big.vegas_params(c.cc_params()).max_window_bytes, 1000u * 2048);
  big.vegas.max_window_bytes = 4u << 20;
  big.vegas.rate_step = Rate::Gbps(1);
  EXPECT_EQ(big.vegas_params(c.cc_params()).max_window_bytes, 4u << 20);
  EXPECT_EQ(big.vegas_params(c.cc_params()).rate_step, Rate::Gbps(1));
}

TEST(CcConfig, OverridesReplaceOnlyTheirDerivedField) {
  const CcParams path = TransportConfig{}.cc_params();
  CcConfig cc;
  cc.swift.target_delay = Time::us(30);
  cc.swift.max_window = 4'000'000;
  const SwiftParams p = cc.swift_params(path);
  EXPECT_EQ(p.target_delay, Time::us(30));
  EXPECT_EQ(p.target_slack, path.base_rtt / 5);  // still derived
  EXPECT_EQ(p.max_window, 4'000'000u);
  EXPECT_EQ(p.initial_window, path.bdp_bytes);
  cc.kind = CcKind::dcqcn;
  cc.dcqcn.min_rate = Rate::Gbps(1);
  cc.dcqcn.params.rp.g = 1.0 / 256;
  EXPECT_EQ(cc.dcqcn_params(path).rp.min_rate, Rate::Gbps(1));
  EXPECT_EQ(cc.dcqcn_params(path).rp.g, 1.0 / 256);
  EXPECT_EQ(cc.dcqcn_params(path).rp.line_rate, path.line_rate);
}

// One unit step: an ACK of a whole window below target adds ai units.
uint64_t growth_after_one_window(const CcConfig& cc) {
  const CcParams path = TransportConfig{}.cc_params();
  auto algorithm = make_congestion_control(cc, path);
  const uint64_t before = algorithm->window_bytes();
  algorithm->on_ack(AckEvent{.now = Time::us(100), .acked_bytes = before, .rtt = path.base_rtt});
  return algorithm->window_bytes() - before;
}

TEST(CcConfig, AnExplicitParameterReachesTheAlgorithm) {
  CcConfig doubled;
  doubled.swift.params.additive_increase = 2;
  EXPECT_EQ(growth_after_one_window(CcConfig{}), 4096u);
  EXPECT_EQ(growth_after_one_window(doubled), 2u * 4096);
}

TEST(CcConfig, ValidateChecksTheBlockInForce) {
  const CcParams path = TransportConfig{}.cc_params();
  CcConfig cc;
  cc.swift.min_window = 2'000'000;  // above the derived initial window (one BDP)
  EXPECT_THROW(cc.validate(path), Error);
  EXPECT_THROW(make_congestion_control(cc, path), Error);
  cc.kind = CcKind::vegas;  // the swift block is not in force
  EXPECT_NO_THROW(cc.validate(path));
  cc.vegas.params.loss_decrease = 1.5;
  EXPECT_THROW(cc.validate(path), Error);
  cc.kind = CcKind::dcqcn;
  cc.dcqcn.min_rate = Rate::Gbps(200);  // above the line rate
  EXPECT_THROW(cc.validate(path), Error);
  cc.kind = CcKind::none;
  EXPECT_NO_THROW(cc.validate(path));
}

TEST(CcConfig, APathFieldSetInParamsInsteadOfItsOverrideIsRefused) {
  const CcParams path = TransportConfig{}.cc_params();
  CcConfig cc;
  cc.swift.params.target_delay = Time::us(20);  // would be replaced by the base RTT
  try {
    cc.validate(path);
    FAIL() << "a path field in params must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("override"), std::string::npos) << e.what();
  }
  CcConfig vegas{.kind = CcKind::vegas};
  vegas.vegas.params.packet_bytes = 1024;
  EXPECT_THROW(vegas.validate(path), Error);
}

TEST(CcConfig, TheTransportConfigValidatesItsCc) {
  TransportConfig c;
  c.cc.swift.params.max_decrease = 0;
  EXPECT_THROW(c.validate(), Error);
  c.cc_location = CcLocation::nic;  // no software CC: nothing to check
  EXPECT_NO_THROW(c.validate());
  c = TransportConfig{};
  c.reliability = Reliability::hardware_rc;
  c.cc.kind = CcKind::vegas;  // Vegas also runs over RC: a sample per completion
  EXPECT_NO_THROW(c.validate());
  c.cc.kind = CcKind::timely;  // the RTT alone: also over RC
  EXPECT_NO_THROW(c.validate());
  for (const CcKind ecn : {CcKind::dcqcn, CcKind::dctcp}) {
    c.cc.kind = ecn;  // ECN echoes ride on Bifröst UC's software ACKs only
    EXPECT_THROW(c.validate(), Error) << to_string(ecn);
  }
}

TEST(CcConfig, TimelyAndDctcpTakeTheirPathFields) {
  TransportConfig c;
  c.unit_size = 2048;
  c.line_rate_bps = 40'000'000'000;
  c.base_rtt = Time::us(12);
  const CcParams path = c.cc_params();
  const TimelyParams t = CcConfig{.kind = CcKind::timely}.timely_params(path);
  EXPECT_EQ(t.line_rate, Rate::Gbps(40));
  EXPECT_EQ(t.additive_increase, Rate::Mbps(40));  // the paper's 10 Mb/s at 10 Gb/s, scaled
  EXPECT_EQ(t.min_rate, Rate::Mbps(400));          // ns3-rdma's 1% of the line rate
  EXPECT_EQ(t.base_rtt, Time::us(12));
  EXPECT_EQ(t.mss, 2048u);
  EXPECT_EQ(t.t_low, Time::us(50));  // the TIMELY paper's constants stay
  const DctcpParams d = CcConfig{.kind = CcKind::dctcp}.dctcp_params(path);
  EXPECT_EQ(d.mss, 2048u);
  EXPECT_EQ(d.max_window_bytes, 4 * path.bdp_bytes);
  CcConfig over{.kind = CcKind::timely};
  over.timely.additive_increase = Rate::Mbps(5);
  EXPECT_EQ(over.timely_params(path).additive_increase, Rate::Mbps(5));
  over.timely.params.line_rate = Rate::Gbps(1);  // a path field set in params
  EXPECT_THROW(over.validate(path), Error);
}

}  // namespace
}  // namespace bifrost::transport
