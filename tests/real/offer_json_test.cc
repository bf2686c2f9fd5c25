// A Bifröst ConnectionOffer and a Virtuoso MpOffer survive the bootstrap's JSON, and impossible
// offers are refused.
#include "bifrost/real/offer_json.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"

namespace bifrost::real {
namespace {

transport::ConnectionOffer offer() {
  transport::ConnectionOffer o;
  o.ip = world::Ipv4::of(10, 77, 0, 2);
  o.ud_qpn = 2;
  o.qkey = 0x0B1F'0057;
  o.connection_id = 3;
  o.reliability = transport::Reliability::hardware_rc;
  o.mtu = 1024;
  o.qps = {{.qpn = 3, .first_psn = 0xFFFFFF}, {.qpn = 4, .first_psn = 0}};
  return o;
}

TEST(OfferJson, RoundTripsEveryField) {
  const transport::ConnectionOffer back = offer_from_json(to_json(offer()));
  const transport::ConnectionOffer o = offer();
  EXPECT_EQ(back.ip, o.ip);
  EXPECT_EQ(back.ud_qpn, o.ud_qpn);
  EXPECT_EQ(back.qkey, o.qkey);
  EXPECT_EQ(back.connection_id, o.connection_id);
  EXPECT_EQ(back.reliability, o.reliability);
  EXPECT_EQ(back.mtu, o.mtu);
  ASSERT_EQ(back.qps.size(), 2u);
  EXPECT_EQ(back.qps[0].qpn, 3u);
  EXPECT_EQ(back.qps[0].first_psn, 0xFFFFFFu);
  EXPECT_EQ(back.qps[1].qpn, 4u);
}

void expect_refused(nlohmann::json j, const std::string& word) {
  try {
    offer_from_json(j);
    FAIL() << "accepted " << j.dump();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
  }
}

TEST(OfferJson, ImpossibleOffersAreRefusedByName) {
  nlohmann::json j = to_json(offer());
  j["qps"][1]["psn"] = 1 << 24;
  expect_refused(j, "psn");
  j = to_json(offer());
  j["ud_qpn"] = 1;
  expect_refused(j, "ud_qpn");
  j = to_json(offer());
  j["reliability"] = "carrier_pigeon";
  expect_refused(j, "carrier_pigeon");
  j = to_json(offer());
  j["qps"] = nlohmann::json::array();
  expect_refused(j, "no QP");
  j = to_json(offer());
  j.erase("qkey");
  expect_refused(j, "qkey");
  j = to_json(offer());
  j["connection_id"] = 0;
  expect_refused(j, "connection_id");
}

// A multi-path offer: each QP's own address (alias) and GID index, and the probe target.
transport::virtuoso::MpOffer mp_offer() {
  transport::virtuoso::MpOffer o;
  o.connection = offer();
  o.connection.qp_addresses = {{.ip = world::Ipv4::of(10, 77, 1, 2), .gid_index = 1},
                               {.ip = world::Ipv4::of(10, 77, 2, 2), .gid_index = 2}};
  o.probe_target = transport::RemoteAddress{.addr = 0x7f00'0000'1000, .rkey = 0xABCD};
  o.probe_bytes = 512 * 1024;
  return o;
}

TEST(OfferJson, MultiPathOffersKeepEveryPathsAddress) {
  const transport::virtuoso::MpOffer back = mp_offer_from_json(to_json(mp_offer()));
  ASSERT_EQ(back.connection.qp_addresses.size(), 2u);
  EXPECT_EQ(back.connection.qp_addresses[0].ip, world::Ipv4::of(10, 77, 1, 2));
  EXPECT_EQ(back.connection.qp_addresses[1].ip, world::Ipv4::of(10, 77, 2, 2));
  EXPECT_EQ(back.connection.qp_addresses[1].gid_index, 2);
  EXPECT_EQ(back.probe_target.addr, 0x7f00'0000'1000u);
  EXPECT_EQ(back.probe_target.rkey, 0xABCDu);
  EXPECT_EQ(back.probe_bytes, 512u * 1024);
  // A single-address offer has no addresses to carry, and reads back without them.
  EXPECT_FALSE(to_json(offer()).contains("qp_addresses"));
  EXPECT_TRUE(offer_from_json(to_json(offer())).qp_addresses.empty());
}

TEST(OfferJson, MultiPathOffersWithoutAnAddressPerQpAreRefused) {
  nlohmann::json j = to_json(mp_offer());
  j["qp_addresses"].erase(1);
  expect_refused(j, "1 QP addresses for 2 QPs");
  j = to_json(mp_offer());
  j["qp_addresses"][0]["gid_index"] = 256;
  expect_refused(j, "gid_index");
  j = to_json(mp_offer());
  j.erase("qp_addresses");
  try {
    mp_offer_from_json(j);
    FAIL() << "accepted a multi-path offer without addresses";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("qp_addresses"), std::string::npos) << e.what();
  }
  j = to_json(mp_offer());
  j.erase("probe_rkey");
  EXPECT_THROW(mp_offer_from_json(j), Error);
}

}  // namespace
}  // namespace bifrost::real
