// [transport] cc and [transport.cc]: the shorthand and the table give the same defaults, each
// kind's keys reach its parameter block and, through it, the algorithm; RoGUE's Vegas keys are
// the same in [transport] and in [transport.cc]. (Mistakes: scenario_bad_files_test.)
#include <gtest/gtest.h>

#include <string>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/cc_config.h"
#include "bifrost/transport/config.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using transport::CcConfig;
using transport::CcKind;

// Four 100 Gb/s hosts on soft RNICs, a [transport] of `kind` followed by `rest`.
std::string with_transport(const std::string& kind, const std::string& rest) {
  return "[simulation]\nmtu = 4096\n[topology]\nkind = \"star\"\nhosts = 4\n[nic]\nmodel = "
         "\"rnic\"\n[transport]\nkind = \"" +
         kind + "\"\n" + rest;
}

CcConfig cc_of(const std::string& kind, const std::string& rest) {
  return parse(with_transport(kind, rest)).transport.cc;
}

// The path the simulator's connections derive their CC from (the [transport] defaults).
transport::CcParams path() {
  return transport::TransportConfig{}.cc_params();
}

TEST(ScenarioCc, TheShorthandAndTheTableGiveTheDefaults) {
  for (const CcKind kind : {CcKind::swift, CcKind::swift_md, CcKind::dcqcn, CcKind::vegas}) {
    const std::string name(transport::to_string(kind));
    const CcConfig shorthand = cc_of("bifrost-uc", "cc = \"" + name + "\"\n");
    const CcConfig table = cc_of("bifrost-uc", "[transport.cc]\nkind = \"" + name + "\"\n");
    EXPECT_EQ(shorthand.kind, kind);
    EXPECT_EQ(table.kind, kind);
  }
  EXPECT_EQ(cc_of("bifrost-rc", "").kind, CcKind::swift);
  // The table without keys: every parameter as the transport derives it without a scenario.
  const CcConfig swift = cc_of("bifrost-uc", "[transport.cc]\nkind = \"swift\"\n");
  const transport::SwiftParams derived = transport::swift_params_for(path());
  EXPECT_EQ(swift.swift_params(path()).target_delay, derived.target_delay);
  EXPECT_EQ(swift.swift_params(path()).additive_increase, derived.additive_increase);
  EXPECT_EQ(swift.swift_params(path()).max_window, derived.max_window);
  // DCQCN's keys go through [nic]'s DCQCN defaults: they must be the reaction point's.
  const CcConfig dcqcn = cc_of("bifrost-uc", "[transport.cc]\nkind = \"dcqcn\"\n");
  const transport::DcqcnParams want = transport::dcqcn_params_for(path());
  const transport::DcqcnParams got = dcqcn.dcqcn_params(path());
  EXPECT_EQ(got.rp.g, want.rp.g);
  EXPECT_EQ(got.rp.min_rate, want.rp.min_rate);
  EXPECT_EQ(got.rp.alpha_update_period, want.rp.alpha_update_period);
  EXPECT_EQ(got.rp.rate_reduce_monitor_period, want.rp.rate_reduce_monitor_period);
  EXPECT_EQ(got.rp.increase_period, want.rp.increase_period);
  EXPECT_EQ(got.rp.increase_bytes, want.rp.increase_bytes);
  EXPECT_EQ(got.rp.fast_recovery_stages, want.rp.fast_recovery_stages);
  EXPECT_EQ(got.rp.additive_increase, want.rp.additive_increase);
  EXPECT_EQ(got.rp.hyper_increase, want.rp.hyper_increase);
  EXPECT_EQ(got.min_time_between_cnps, want.min_time_between_cnps);
}

TEST(ScenarioCc, SwiftKeysFillTheBlock) {
  const CcConfig cc = cc_of("bifrost-uc", R"([transport.cc]
kind = "swift"
target_delay = "30us"
target_slack = "2us"
ai = 2
beta = 0.5
max_mdf = 0.25
min_window = "8KiB"
initial_window = "64KiB"
max_window = "1MiB"
target_follows_min_rtt = false
loss_needs_queuing = true
loss_gate = true
random_loss_tolerance = 0.03
loss_gate_memory = 512
loss_to_minimum = false
)");
  const transport::SwiftParams p = cc.swift_params(path());
  EXPECT_EQ(p.target_delay, Time::us(30));
  EXPECT_EQ(p.target_slack, Time::us(2));
  EXPECT_EQ(p.additive_increase, 2);
  EXPECT_EQ(p.beta, 0.5);
  EXPECT_EQ(p.max_decrease, 0.25);
  EXPECT_EQ(p.min_window, 8192u);
  EXPECT_EQ(p.initial_window, 65536u);
  EXPECT_EQ(p.max_window, 1u << 20);
  EXPECT_FALSE(p.target_follows_min_rtt);
  EXPECT_TRUE(p.loss_needs_queuing);
  EXPECT_TRUE(p.loss_gate);
  EXPECT_EQ(p.random_loss_tolerance, 0.03);
  EXPECT_EQ(p.loss_gate_memory, 512);
  EXPECT_FALSE(p.loss_to_minimum);
  EXPECT_NO_THROW(cc.validate(path()));
}

TEST(ScenarioCc, AChangedAiMakesTheBuiltSwiftGrowFaster) {
  const auto growth = [](const CcConfig& cc) {
    auto swift = transport::make_congestion_control(cc, path());
    const uint64_t before = swift->window_bytes();
    swift->on_ack(
        transport::AckEvent{.now = Time::us(100), .acked_bytes = before, .rtt = path().base_rtt});
    return swift->window_bytes() - before;
  };
  const CcConfig plain = cc_of("bifrost-uc", "cc = \"swift\"\n");
  const CcConfig faster = cc_of("bifrost-uc", "[transport.cc]\nkind = \"swift\"\nai = 3\n");
  EXPECT_EQ(growth(plain), 4096u);  // one unit per window
  EXPECT_EQ(growth(faster), 3u * 4096);
}

TEST(ScenarioCc, DcqcnAndVegasKeysFillTheirBlocks) {
  const CcConfig dcqcn = cc_of("bifrost-uc", R"([transport.cc]
kind = "dcqcn"
g = 0.00390625
min_rate = "10Mbps"
increase_period = "55us"
increase_bytes = "10MB"
fast_recovery_stages = 3
additive_increase = "40Mbps"
hyper_increase = "100Mbps"
cnp_interval = "50us"
)");
  const transport::DcqcnParams d = dcqcn.dcqcn_params(path());
  EXPECT_EQ(d.rp.g, 1.0 / 256);
  EXPECT_EQ(d.rp.min_rate, Rate::Mbps(10));
  EXPECT_EQ(d.rp.increase_period, Time::us(55));
  EXPECT_EQ(d.rp.increase_bytes, 10'000'000u);
  EXPECT_EQ(d.rp.fast_recovery_stages, 3u);
  EXPECT_EQ(d.rp.additive_increase, Rate::Mbps(40));
  EXPECT_EQ(d.rp.hyper_increase, Rate::Mbps(100));
  EXPECT_EQ(d.min_time_between_cnps, Time::us(50));
  EXPECT_EQ(d.rp.line_rate, path().line_rate);

  const CcConfig vegas = cc_of("bifrost-rc", R"([transport.cc]
kind = "vegas"
alpha = 1
beta = 3
initial_window = 20
loss_decrease = 0.7
base_rtt_floor = "5us"
)");
  const transport::VegasParams v = vegas.vegas_params(path());
  EXPECT_EQ(v.alpha, 1);
  EXPECT_EQ(v.beta, 3);
  EXPECT_EQ(v.initial_window_packets, 20u);
  EXPECT_EQ(v.loss_decrease, 0.7);
  EXPECT_EQ(v.base_rtt_floor, Time::us(5));
  EXPECT_EQ(v.packet_bytes, 4096u);  // the unit size
}

TEST(ScenarioCc, TimelyAndDctcpKeysFillTheirBlocks) {
  const CcConfig timely = cc_of("bifrost-rc", R"([transport.cc]
kind = "timely"
alpha = 0.5
beta = 0.6
t_low = "20us"
t_high = "200us"
min_rtt = "8us"
hai_threshold = 3
additive_increase = "40Mbps"
min_rate = "100Mbps"
)");
  const transport::TimelyParams t = timely.timely_params(path());
  EXPECT_EQ(t.alpha, 0.5);
  EXPECT_EQ(t.beta, 0.6);
  EXPECT_EQ(t.t_low, Time::us(20));
  EXPECT_EQ(t.t_high, Time::us(200));
  EXPECT_EQ(t.min_rtt, Time::us(8));
  EXPECT_EQ(t.hai_threshold, 3u);
  EXPECT_EQ(t.additive_increase, Rate::Mbps(40));
  EXPECT_EQ(t.min_rate, Rate::Mbps(100));
  EXPECT_EQ(t.line_rate, path().line_rate);

  const CcConfig dctcp = cc_of("bifrost-uc", R"([transport.cc]
kind = "dctcp"
g = 0.125
initial_window = 4
min_window = 1
max_window = "1MB"
)");
  const transport::DctcpParams d = dctcp.dctcp_params(path());
  EXPECT_EQ(d.g, 0.125);
  EXPECT_EQ(d.initial_window_packets, 4u);
  EXPECT_EQ(d.min_window_packets, 1u);
  EXPECT_EQ(d.max_window_bytes, 1'000'000u);
  EXPECT_EQ(d.mss, 4096u);
}

TEST(ScenarioCc, RogueVegasKeysMeanTheSameInEitherPlace) {
  const CcConfig old_keys = cc_of("rogue-uc", R"(alpha = 4
beta = 2
literal_vegas = true
initial_window = 16
base_rtt_floor = "20us"
rate_basis = "current_rtt"
)");
  const CcConfig table = cc_of("rogue-uc", R"([transport.cc]
kind = "vegas"
alpha = 4
beta = 2
literal = true
initial_window = 16
base_rtt_floor = "20us"
rate_basis = "current_rtt"
)");
  for (const CcConfig& cc : {old_keys, table}) {
    EXPECT_EQ(cc.kind, CcKind::vegas);
    const transport::VegasParams& v = cc.vegas.params;
    EXPECT_EQ(v.alpha, 4);
    EXPECT_EQ(v.beta, 2);
    EXPECT_TRUE(v.literal);
    EXPECT_EQ(v.initial_window_packets, 16u);
    EXPECT_EQ(v.base_rtt_floor, Time::us(20));
    EXPECT_EQ(v.rate_basis, transport::VegasRateBasis::current_rtt);
  }
  // Without any: Vegas with its own defaults, as RoGUE had them (§3.3's cwnd / base_rtt).
  const CcConfig plain = cc_of("rogue-rc", "");
  EXPECT_EQ(plain.kind, CcKind::vegas);
  EXPECT_EQ(plain.vegas.params.alpha, transport::VegasParams{}.alpha);
  EXPECT_EQ(plain.vegas.params.rate_basis, transport::VegasRateBasis::base_rtt);
  EXPECT_EQ(cc_of("rogue-rc", "rate_basis = \"base_rtt\"\n").vegas.params.rate_basis,
            transport::VegasRateBasis::base_rtt);
  EXPECT_EQ(cc_of("rogue-rc", "cc = \"vegas\"\n").kind, CcKind::vegas);
}

TEST(ScenarioCc, KindConflictsAreErrorsAtTheKind) {
  const auto message = [](const std::string& kind, const std::string& rest) {
    try {
      (void)parse(with_transport(kind, rest));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("rogue-uc", "cc = \"dcqcn\"\n"),
            "test.toml:10:6: transport.cc: \"dcqcn\" is not RoGUE's: rogue-rc and rogue-uc run "
            "\"vegas\"");
  EXPECT_EQ(message("bifrost-rc", "[transport.cc]\nkind = \"dcqcn\"\n"),
            "test.toml:11:8: transport.cc.kind: \"dcqcn\" needs kind \"bifrost-uc\": its ECN echo "
            "rides on software ACKs (over RC, set dcqcn = true in [nic] instead)");
  EXPECT_EQ(message("bifrost-rc", "[transport.cc]\nkind = \"dctcp\"\n"),
            "test.toml:11:8: transport.cc.kind: \"dctcp\" needs kind \"bifrost-uc\": its ECN echo "
            "rides on software ACKs");
  EXPECT_EQ(message("bifrost-uc", "[transport.cc]\nkind = \"timely\"\nt_low = \"600us\"\n"),
            "test.toml:12:9: transport.cc.t_low: t_high (500 us) is below t_low (600 us)");
  EXPECT_EQ(message("bifrost-uc", "[transport.cc]\nkind = \"swift-md\"\nloss_to_minimum = true\n"),
            "test.toml:12:19: transport.cc.loss_to_minimum: belongs to kind \"swift\", not to kind "
            "\"swift-md\"; valid keys for \"swift-md\": kind, target_delay, target_slack, ai, "
            "beta, max_mdf, min_window, initial_window, max_window, target_follows_min_rtt, "
            "loss_needs_queuing, loss_gate, random_loss_tolerance, loss_gate_memory");
  EXPECT_EQ(message("bifrost-uc", "[transport.cc]\nkind = \"swift\"\nmax_mdf = 1.5\n"),
            "test.toml:12:11: transport.cc.max_mdf: 1.5 is not valid; valid values: (0, 1]");
}

}  // namespace
}  // namespace bifrost::sim
