// The TCP bootstrap: a good exchange, an absent server, and peers that disagree.
#include "bifrost/real/bootstrap.h"

#include <gtest/gtest.h>

#include <future>

#include "bifrost/core/error.h"
#include "loopback_pair.h"

namespace bifrost::real {
namespace {

uint16_t test_port() {
  return static_cast<uint16_t>(20000 + ::getpid() % 20000);
}

PeerInfo info(uint32_t qpn, const std::string& test = "write_bw") {
  PeerInfo p;
  p.ip = world::Ipv4::of(10, 0, 0, 1);
  p.buffer_va = 0x1000;
  p.buffer_length = 1 << 20;
  p.rkey = 0xABCD;
  p.qps = {{qpn, 77}};
  p.settings = {{"test", test}, {"size", 65536}};
  return p;
}

// Runs a server exchange on another thread and returns its result (or rethrows its error).
std::future<PeerInfo> serve(PeerInfo mine) {
  return std::async(std::launch::async, [mine] {
    ControlChannel channel = ControlChannel::accept("127.0.0.1", test_port(), Time::s(10));
    return exchange_peer_info(channel, mine, Time::s(10));
  });
}

TEST(Bootstrap, PeersLearnEachOthersQueuePairs) {
  auto server = serve(info(5));
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  const PeerInfo got = exchange_peer_info(client, info(9), Time::s(10));
  EXPECT_EQ(got.qps.at(0).qpn, 5u);
  EXPECT_EQ(got.qps.at(0).psn, 77u);
  EXPECT_EQ(got.rkey, 0xABCDu);
  EXPECT_EQ(got.ip, world::Ipv4::of(10, 0, 0, 1));
  EXPECT_EQ(server.get().qps.at(0).qpn, 9u);
  EXPECT_EQ(client.local_ip(), world::Ipv4::of(127, 0, 0, 1));
}

TEST(Bootstrap, AbsentServerIsAClearErrorWithinTheTimeout) {
  try {
    ControlChannel::connect("127.0.0.1", test_port(), Time::ms(300));
    FAIL() << "connected to nothing";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no bifrost-perf server at 127.0.0.1"), std::string::npos)
        << e.what();
  }
}

TEST(Bootstrap, DifferentSettingsAreRefusedOnBothSides) {
  auto server = serve(info(5, "read_bw"));
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  try {
    exchange_peer_info(client, info(9, "write_bw"), Time::s(10));
    FAIL() << "accepted a peer running another test";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'test'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(server.get(), Error);
}

transport::ConnectionOffer offer(transport::Reliability mode, uint32_t qpn) {
  transport::ConnectionOffer o;
  o.ip = world::Ipv4::of(10, 0, 0, 1);
  o.ud_qpn = 2;
  o.connection_id = 1;
  o.reliability = mode;
  o.qps = {{.qpn = qpn, .first_psn = 11}, {.qpn = qpn + 1, .first_psn = 12}};
  return o;
}

TEST(Bootstrap, ConnectionOffersTravelBothWays) {
  PeerInfo server_info = info(5);
  server_info.offers = {offer(transport::Reliability::software_uc, 40)};
  auto server = serve(server_info);
  PeerInfo client_info = info(9);
  client_info.offers = {offer(transport::Reliability::software_uc, 60)};
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  const PeerInfo got = exchange_peer_info(client, client_info, Time::s(10));
  ASSERT_EQ(got.offers.size(), 1u);
  EXPECT_EQ(got.offers[0].qps.at(1).qpn, 41u);
  EXPECT_EQ(got.offers[0].qps.at(1).first_psn, 12u);
  const PeerInfo seen_by_server = server.get();
  ASSERT_EQ(seen_by_server.offers.size(), 1u);
  EXPECT_EQ(seen_by_server.offers[0].qps.at(0).qpn, 60u);
}

TEST(Bootstrap, OffersOfAnotherModeAreRefused) {
  PeerInfo server_info = info(5);
  server_info.offers = {offer(transport::Reliability::hardware_rc, 40)};
  auto server = serve(server_info);
  PeerInfo client_info = info(9);
  client_info.offers = {offer(transport::Reliability::software_uc, 60)};
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  try {
    exchange_peer_info(client, client_info, Time::s(10));
    FAIL() << "accepted a peer whose connection uses the other mode";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Bifröst connection 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(server.get(), Error);
}

TEST(Bootstrap, OtherVersionIsRefused) {
  PeerInfo old = info(5);
  old.version = kBootstrapVersion + 1;
  auto server = serve(old);
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  try {
    exchange_peer_info(client, info(9), Time::s(10));
    FAIL() << "accepted another protocol version";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("version"), std::string::npos) << e.what();
  }
  EXPECT_THROW(server.get(), Error);
}

TEST(Bootstrap, GarbageFromThePeerIsAClearError) {
  auto server = std::async(std::launch::async, [] {
    ControlChannel channel = ControlChannel::accept("127.0.0.1", test_port(), Time::s(10));
    const char junk[] = "HTTP/1.1 200 OK\n";
    ::send(channel.fd(), junk, sizeof junk - 1, 0);
    channel.receive(Time::s(2));  // the client's info
    channel.receive(Time::s(2));  // throws once the client hangs up
  });
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  EXPECT_THROW(exchange_peer_info(client, info(9), Time::s(10)), Error);
  { ControlChannel closing = std::move(client); }  // hang up so the server thread ends
  EXPECT_THROW(server.get(), Error);
}

// Found by fuzz_bootstrap: nlohmann converts 1e100 to uint32_t with undefined behaviour and
// 4096.5 or -1 silently. Every integer field is checked and refused by name.
TEST(Bootstrap, NumbersOutOfTheirFieldAreRefusedByName) {
  for (const char* bad : {"1e100", "4096.5", "-1", "4294967296", "\"4096\""}) {
    nlohmann::json m = to_json(info(5));
    m["mtu"] = nlohmann::json::parse(bad);
    try {
      peer_info_from_json(m);
      ADD_FAILURE() << "mtu " << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("mtu"), std::string::npos) << e.what();
    }
  }
  nlohmann::json m = to_json(info(5));
  m["qps"][0]["qpn"] = -3;
  EXPECT_THROW(peer_info_from_json(m), Error);
  EXPECT_EQ(peer_info_from_json(to_json(info(5))).mtu, 4096u);
}

TEST(Bootstrap, SilentPeerTimesOut) {
  auto server = std::async(std::launch::async, [] {
    ControlChannel channel = ControlChannel::accept("127.0.0.1", test_port(), Time::s(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  });
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  EXPECT_THROW(exchange_peer_info(client, info(9), Time::ms(200)), Error);
  server.get();
}

transport::virtuoso::MpOffer mp_offer(uint32_t qpn, size_t paths) {
  transport::virtuoso::MpOffer o;
  o.connection = offer(transport::Reliability::hardware_rc, qpn);
  o.connection.qps.resize(paths, {.qpn = qpn + 7, .first_psn = 1});
  for (size_t i = 0; i < paths; ++i) {
    o.connection.qp_addresses.push_back(
        {.ip = world::Ipv4::of(10, 77, static_cast<uint8_t>(i + 1), 2),
         .gid_index = static_cast<uint8_t>(i + 1)});
  }
  o.probe_target = transport::RemoteAddress{.addr = 4096, .rkey = 5};
  o.probe_bytes = 1 << 19;
  return o;
}

TEST(Bootstrap, MultiPathOffersCarryEveryPathsAddress) {
  PeerInfo server_info = info(5);
  server_info.mp_offers = {mp_offer(40, 3)};
  auto server = serve(server_info);
  PeerInfo client_info = info(9);
  client_info.mp_offers = {mp_offer(60, 3)};
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  const PeerInfo got = exchange_peer_info(client, client_info, Time::s(10));
  ASSERT_EQ(got.mp_offers.size(), 1u);
  ASSERT_EQ(got.mp_offers[0].connection.qp_addresses.size(), 3u);
  EXPECT_EQ(got.mp_offers[0].connection.qp_addresses[2].ip, world::Ipv4::of(10, 77, 3, 2));
  EXPECT_EQ(got.mp_offers[0].probe_target.rkey, 5u);
  EXPECT_EQ(server.get().mp_offers.at(0).connection.qps.at(0).qpn, 60u);
}

TEST(Bootstrap, MultiPathOffersWithAnotherPathCountAreRefused) {
  PeerInfo server_info = info(5);
  server_info.mp_offers = {mp_offer(40, 2)};
  auto server = serve(server_info);
  PeerInfo client_info = info(9);
  client_info.mp_offers = {mp_offer(60, 4)};
  ControlChannel client = ControlChannel::connect("127.0.0.1", test_port(), Time::s(10));
  try {
    exchange_peer_info(client, client_info, Time::s(10));
    FAIL() << "accepted a peer with another number of paths";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4 paths here, 2 at the peer"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(server.get(), Error);
}

}  // namespace
}  // namespace bifrost::real
