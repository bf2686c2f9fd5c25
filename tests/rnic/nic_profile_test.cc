// NIC generation profiles (rnic/nic_profile.h) and the go-back-N lossy features they switch on:
// the fixed in-flight window and adaptive retransmission.
#include "bifrost/rnic/nic_profile.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/engine.h"

namespace bifrost::rnic {
namespace {

DeviceConfig with_dcqcn() {
  DeviceConfig d;
  d.recovery.kind = recovery::EngineKind::irn;
  d.dcqcn = DcqcnConfig{};
  return d;
}

TEST(NicProfile, TheGenerationsDifferInTheirNamedParameters) {
  const NicProfile cx4 = connectx4_profile();
  const NicProfile cx5 = connectx5_profile();
  EXPECT_EQ(cx4.dcqcn_increase_period, DcqcnConfig{}.increase_period) << "mlx5 RPG_TIME_RESET";
  EXPECT_EQ(cx4.dcqcn_increase_bytes, DcqcnConfig{}.increase_bytes) << "mlx5 RPG_BYTE_RESET";
  EXPECT_EQ(cx5.dcqcn_increase_period, Time::us(55)) << "the DCQCN paper's timer";
  EXPECT_EQ(cx5.dcqcn_increase_bytes, 10'000'000u) << "the DCQCN paper's byte counter";
  EXPECT_TRUE(cx4.needs_lossless);
  EXPECT_FALSE(cx5.needs_lossless);
  EXPECT_FALSE(cx4.has_lossy_features);
  EXPECT_TRUE(cx5.has_lossy_features);
  EXPECT_FALSE(cx5.lossy.any()) << "lossy features are off unless asked for";
  EXPECT_EQ(cx4.dcqcn_reaction_groups, 5u) << "calibrated to the Bifröst paper's Fig. 10";
  EXPECT_EQ(cx5.dcqcn_reaction_groups, 0u) << "a reaction point per QP";
  EXPECT_EQ(find_nic_profile("cx4").name, "cx4");
  EXPECT_EQ(find_nic_profile("cx5").name, "cx5");
  EXPECT_THROW(find_nic_profile("cx6"), Error);
}

TEST(NicProfile, ApplySetsGoBackNAndTheDcqcnConstants) {
  DeviceConfig d = with_dcqcn();
  connectx5_profile().apply(d);
  EXPECT_EQ(d.recovery.kind, recovery::EngineKind::gbn);
  EXPECT_EQ(d.dcqcn->increase_period, Time::us(55));
  EXPECT_EQ(d.dcqcn->increase_bytes, 10'000'000u);
  EXPECT_EQ(d.recovery.gbn_tx_window, 0u);
  EXPECT_EQ(d.recovery.gbn_adaptive_rto, Time::zero());
  EXPECT_FALSE(d.slow_restart);

  EXPECT_EQ(d.dcqcn_reaction_groups, 0u);
  connectx4_profile().apply(d);
  EXPECT_EQ(d.dcqcn_reaction_groups, 5u);

  DeviceConfig plain;  // DCQCN off: the constants have nowhere to go and nothing fails
  connectx4_profile().apply(plain);
  EXPECT_FALSE(plain.dcqcn.has_value());
}

TEST(NicProfile, ApplyTurnsOnTheRequestedLossyFeatures) {
  NicProfile cx5 = connectx5_profile();
  cx5.lossy = {.tx_window = true,
               .tx_window_packets = 64,
               .slow_restart = true,
               .adaptive_retransmission = true,
               .adaptive_rto = Time::us(8)};
  DeviceConfig d = with_dcqcn();
  cx5.apply(d);
  EXPECT_EQ(d.recovery.gbn_tx_window, 64u);
  EXPECT_EQ(d.recovery.gbn_adaptive_rto, Time::us(8));
  EXPECT_TRUE(d.slow_restart);
}

TEST(NicProfile, AnAckDelayOverrideReachesTheDataPath) {
  DeviceConfig d;
  connectx4_profile().apply(d);
  EXPECT_EQ(d.data_path.ack_delay, DataPathConfig{}.ack_delay) << "no profile sets its own";
  NicProfile cx5 = connectx5_profile();
  cx5.ack_delay = Time::us(3);
  cx5.apply(d);
  EXPECT_EQ(d.data_path.ack_delay, Time::us(3));
  cx5.ack_delay = Time::us(-1);
  EXPECT_THROW(cx5.apply(d), Error);
}

TEST(NicProfile, TheConnectX3ProIsRoguesTestbedNic) {
  const NicProfile cx3 = find_nic_profile("cx3pro");
  EXPECT_EQ(cx3.name, "cx3pro");
  EXPECT_EQ(cx3.line_rate, Rate::Gbps(10));
  EXPECT_TRUE(cx3.needs_lossless);
  EXPECT_FALSE(cx3.has_lossy_features);
  DeviceConfig d;
  d.recovery.kind = recovery::EngineKind::irn;
  cx3.apply(d);
  EXPECT_EQ(d.recovery.kind, recovery::EngineKind::gbn);
  EXPECT_EQ(d.max_mtu, 2048u);
  EXPECT_EQ(d.per_priority_limiters, 8u);
  EXPECT_EQ(d.rate_limiter.change_delay, Bytes(160'000));
  EXPECT_TRUE(d.data_path.serialize_verbs_after_retransmission);

  DeviceConfig other;  // the newer generations keep the device's own values
  connectx4_profile().apply(other);
  connectx5_profile().apply(other);
  EXPECT_EQ(other.max_mtu, DeviceConfig{}.max_mtu);
  EXPECT_EQ(other.per_priority_limiters, 0u);
  EXPECT_EQ(other.rate_limiter.change_delay, Bytes(0));
  EXPECT_FALSE(other.data_path.serialize_verbs_after_retransmission);
  EXPECT_THROW(find_nic_profile("cx3"), Error);
}

TEST(NicProfile, ImpossibleProfilesAreRefused) {
  NicProfile cx4 = connectx4_profile();
  cx4.lossy.tx_window = true;
  DeviceConfig d = with_dcqcn();
  EXPECT_THROW(cx4.apply(d), Error) << "CX-4 has no lossy features";

  NicProfile cx5 = connectx5_profile();
  cx5.lossy.slow_restart = true;
  DeviceConfig no_dcqcn;
  EXPECT_THROW(cx5.apply(no_dcqcn), Error) << "slow restart cuts a DCQCN rate";

  cx5 = connectx5_profile();
  cx5.lossy = {.tx_window = true, .tx_window_packets = 0};
  EXPECT_THROW(cx5.apply(d), Error);

  cx5 = connectx5_profile();
  cx5.dcqcn_increase_period = Time::zero();
  EXPECT_THROW(cx5.apply(d), Error);
}

// A go-back-N requester and the engine that made it (kept alive beside it).
struct Gbn {
  Gbn(uint32_t window, Time adaptive) {
    recovery::RecoveryConfig c;
    c.gbn_tx_window = window;
    c.gbn_adaptive_rto = adaptive;
    engine = recovery::make_engine(c);
    requester = engine->make_requester();
  }
  recovery::RequesterState* operator->() { return requester.get(); }

  std::unique_ptr<recovery::Engine> engine;
  std::unique_ptr<recovery::RequesterState> requester;
};

TEST(GbnLossyFeatures, TheWindowCapsPacketsInFlight) {
  Gbn plain(0, Time::zero());
  EXPECT_TRUE(plain->may_send_new(1'000'000)) << "no window without the feature";
  Gbn windowed(16, Time::zero());
  EXPECT_TRUE(windowed->may_send_new(15));
  EXPECT_FALSE(windowed->may_send_new(16));
  windowed->on_nak(5, 16);  // while rewinding nothing new goes out, window or not
  EXPECT_FALSE(windowed->may_send_new(0));
}

TEST(GbnLossyFeatures, AdaptiveTimeoutStartsShortDoublesAndResetsOnProgress) {
  const Time qp_timeout = Time::ns(4096) * 256;  // timeout exponent 8: about 1 ms
  Gbn plain(0, Time::zero());
  EXPECT_EQ(plain->timeout(4, qp_timeout), qp_timeout);

  Gbn adaptive(0, Time::us(16));
  EXPECT_EQ(adaptive->timeout(4, qp_timeout), Time::us(16));
  adaptive->on_timeout(0, 4);
  EXPECT_EQ(adaptive->timeout(4, qp_timeout), Time::us(32));
  adaptive->on_timeout(0, 4);
  EXPECT_EQ(adaptive->timeout(4, qp_timeout), Time::us(64));
  for (int i = 0; i < 30; ++i) adaptive->on_timeout(0, 4);
  EXPECT_EQ(adaptive->timeout(4, qp_timeout), qp_timeout) << "never beyond the QP's own";
  adaptive->on_ack(2);
  EXPECT_EQ(adaptive->timeout(2, qp_timeout), Time::us(16)) << "progress ends the episode";
}

TEST(GbnLossyFeatures, AnAdaptiveTimeoutAboveOneSecondIsRefused) {
  recovery::RecoveryConfig c;
  c.gbn_adaptive_rto = Time::s(2);
  EXPECT_THROW(recovery::make_engine(c), Error);
}

}  // namespace
}  // namespace bifrost::rnic
