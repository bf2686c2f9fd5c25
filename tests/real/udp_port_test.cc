// The UDP port on its own: what it puts on the wire, and what it refuses to deliver.
#include "bifrost/real/udp_port.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/wire/codec.h"
#include "loopback_pair.h"

namespace bifrost::real {
namespace {

using testing::loopback_address;

// A plain UDP socket bound to `ip`:`port` (0: any port).
class RawSocket {
 public:
  RawSocket(world::Ipv4 ip, uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(ip.value);
    sa.sin_port = htons(port);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    timeval tv{.tv_sec = 5, .tv_usec = 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawSocket() { ::close(fd_); }
  world::Endpoint endpoint() const {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
    return {world::Ipv4{ntohl(sa.sin_addr.s_addr)}, ntohs(sa.sin_port)};
  }
  void send_to(world::Endpoint to, std::span<const std::byte> bytes) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(to.ip.value);
    sa.sin_port = htons(to.port);
    ASSERT_EQ(
        ::sendto(fd_, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&sa), sizeof sa),
        static_cast<ssize_t>(bytes.size()));
  }
  std::vector<std::byte> receive() {
    std::vector<std::byte> buf(9000);
    const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
    buf.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return buf;
  }

 private:
  int fd_ = -1;
};

// True if `bytes`, a datagram the port sent from ip:src_port to 127.0.0.2:4791, carries the ICRC
// of the headers the kernel wrote (IP id 0).
bool icrc_as_sent(world::Ipv4 ip, uint16_t src_port, std::span<const std::byte> bytes) {
  const wire::IpUdpInfo info{.src_ip = ip.value,
                             .dst_ip = loopback_address(2).value,
                             .src_port = src_port,
                             .dst_port = 4791,
                             .ip_id = 0};
  return wire::icrc_matches(info, bytes);
}

wire::RoceHeaders send_only(uint32_t qpn, uint32_t psn) {
  wire::RoceHeaders h;
  h.bth.opcode = wire::Opcode::kRcSendOnly;
  h.bth.dest_qp = qpn;
  h.bth.psn = psn;
  return h;
}

struct Received {
  std::vector<world::PacketPtr> packets;
};

TEST(UdpPort, SendsAValidRoceDatagramFromThePacketsSourceEndpoint) {
  EventLoop loop;
  const world::Ipv4 ip = loopback_address(1);
  UdpPort port(loop, UdpPortConfig{.local_addresses = {ip}});
  RawSocket peer(loopback_address(2), 4791);
  int transmitted = 0;
  port.set_transmit_handler([&] { ++transmitted; });

  world::PacketPtr p = world::make_packet();
  p->src = {ip, 0xC123};
  p->dst = {loopback_address(2), 4791};
  p->roce = send_only(77, 1234);
  p->payload.length = 5;
  p->payload.bytes = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}, std::byte{5}};
  port.send(std::move(p));
  EXPECT_EQ(transmitted, 0);  // reported after the kernel takes it, never from inside send()
  loop.run_until([&] { return transmitted == 1; }, loop.now() + Time::s(5));
  EXPECT_EQ(transmitted, 1);

  const auto bytes = peer.receive();
  ASSERT_FALSE(bytes.empty());
  const auto view = wire::decode_udp_payload(bytes);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view.value.headers.bth.dest_qp, 77u);
  EXPECT_EQ(view.value.headers.bth.psn, 1234u);
  ASSERT_EQ(view.value.payload.size(), 5u);
  EXPECT_EQ(view.value.payload[4], std::byte{5});
  // The ICRC is over the headers the kernel wrote: source 0xC123, IP id 0.
  EXPECT_TRUE(icrc_as_sent(ip, 0xC123, bytes));
  EXPECT_EQ(port.counters().tx_datagrams, 1u);
}

// A payload borrowed from memory goes out as it is, and the transmit handler learns when the
// kernel call that took it ran.
TEST(UdpPort, SendsABorrowedPayloadAndTellsItsDeparture) {
  EventLoop loop;
  const world::Ipv4 ip = loopback_address(1);
  UdpPort port(loop, UdpPortConfig{.local_addresses = {ip}});
  RawSocket peer(loopback_address(2), 4791);
  std::vector<Time> departures;
  port.set_transmit_handler([&] { departures.push_back(port.departure()); });
  const std::vector<std::byte> memory(4096 + 3, std::byte{0x3c});

  const Time before = loop.now();
  world::PacketPtr p = world::make_packet();
  p->src = {ip, 0xC124};
  p->dst = {loopback_address(2), 4791};
  p->roce = send_only(78, 9);
  p->payload.length = static_cast<uint32_t>(memory.size());
  p->payload.borrowed = memory;
  port.send(std::move(p));
  loop.run_until([&] { return !departures.empty(); }, loop.now() + Time::s(5));
  ASSERT_EQ(departures.size(), 1u);
  EXPECT_GE(departures[0], before);
  EXPECT_LE(departures[0], loop.now());
  EXPECT_EQ(port.departure(), Time::zero()) << "only while the handler runs";

  const auto bytes = peer.receive();
  const auto view = wire::decode_udp_payload(bytes);
  ASSERT_TRUE(view.ok());
  EXPECT_TRUE(std::ranges::equal(view.value.payload, memory));
  EXPECT_TRUE(icrc_as_sent(ip, 0xC124, bytes));
}

// lend_payloads: the handler sees the payload in the receive buffer, not a copy.
TEST(UdpPort, LentPayloadsBorrowTheReceiveBufferDuringTheHandler) {
  EventLoop loop;
  const world::Ipv4 ip = loopback_address(1);
  UdpPort port(loop, UdpPortConfig{.local_addresses = {ip}, .lend_payloads = true});
  std::vector<std::vector<std::byte>> seen;
  port.set_receive_handler([&](world::PacketPtr p) {
    EXPECT_TRUE(p->payload.bytes.empty());
    EXPECT_EQ(p->payload.borrowed.size(), p->payload.length);
    p->payload.own();  // a handler that keeps the packet must own its bytes
    seen.push_back(p->payload.bytes);
  });
  RawSocket sender(loopback_address(2), 0);
  const world::Endpoint from = sender.endpoint();
  const wire::IpUdpInfo info{.src_ip = from.ip.value,
                             .dst_ip = ip.value,
                             .src_port = from.port,
                             .dst_port = 4791,
                             .ip_id = 0};
  for (uint8_t k = 1; k <= 3; ++k) {
    std::vector<std::byte> datagram(128);
    const std::vector<std::byte> payload(20, std::byte{k});
    const auto size = wire::encode_udp_payload(info, send_only(9, k), payload, datagram);
    ASSERT_TRUE(size.ok());
    datagram.resize(size.value);
    sender.send_to({ip, 4791}, datagram);
  }
  loop.run_until([&] { return seen.size() == 3; }, loop.now() + Time::s(5));
  ASSERT_EQ(seen.size(), 3u);
  for (uint8_t k = 1; k <= 3; ++k) EXPECT_EQ(seen[k - 1], std::vector<std::byte>(20, std::byte{k}));
}

TEST(UdpPort, DeliversGoodDatagramsAndCountsBadOnesByReason) {
  EventLoop loop;
  const world::Ipv4 ip = loopback_address(1);
  UdpPort port(loop, UdpPortConfig{.local_addresses = {ip}});
  std::vector<world::PacketPtr> got;
  port.set_receive_handler([&](world::PacketPtr p) { got.push_back(std::move(p)); });
  RawSocket hostile(loopback_address(2), 0);
  const world::Endpoint from = hostile.endpoint();
  const world::Endpoint to{ip, 4791};

  std::vector<std::byte> good(64);
  const std::vector<std::byte> payload(16, std::byte{0xAB});
  const wire::IpUdpInfo info{.src_ip = from.ip.value,
                             .dst_ip = ip.value,
                             .src_port = from.port,
                             .dst_port = 4791,
                             .ip_id = 0};
  const auto size = wire::encode_udp_payload(info, send_only(9, 42), payload, good);
  ASSERT_TRUE(size.ok());
  good.resize(size.value);

  hostile.send_to(to, good);
  std::vector<std::byte> bad_icrc = good;
  bad_icrc.back() ^= std::byte{1};
  hostile.send_to(to, bad_icrc);
  std::vector<std::byte> flipped_payload = good;
  flipped_payload[20] ^= std::byte{0x10};
  hostile.send_to(to, flipped_payload);
  hostile.send_to(to, std::span(good).first(7));  // truncated inside the BTH
  const std::vector<std::byte> garbage(3000, std::byte{0xFF});
  hostile.send_to(to, garbage);
  const std::vector<std::byte> huge(8000, std::byte{0});
  hostile.send_to(to, huge);

  loop.run_until([&] { return port.counters().rx_datagrams == 6; }, loop.now() + Time::s(5));
  const UdpPortCounters& c = port.counters();
  EXPECT_EQ(c.rx_datagrams, 6u);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]->roce.bth.psn, 42u);
  EXPECT_EQ(got[0]->src, from);
  EXPECT_EQ(got[0]->dst, to);
  EXPECT_EQ(got[0]->payload.bytes, payload);
  EXPECT_EQ(c.rx_bad_icrc, 2u);
  EXPECT_EQ(c.rx_truncated, 1u);
  EXPECT_EQ(c.rx_malformed + c.rx_bad_icrc + c.rx_truncated, 5u);
  EXPECT_GE(c.rx_malformed, 2u);
  EXPECT_NE(port.last_rx_kernel_time(), Time::zero());
}

// GSO on send, GRO on receive: a burst of 40 datagrams (equal sizes but the last) goes out in
// few sendmsg calls and comes back split into the same 40 datagrams, in order, each passing its
// own ICRC, with a short one, a different destination port and a different DSCP breaking runs.
TEST(UdpPort, GsoBurstsArriveAsTheSameDatagramsThroughGro) {
  EventLoop loop;
  const world::Ipv4 a = loopback_address(1);
  const world::Ipv4 b = loopback_address(2);
  UdpPort sender(loop, UdpPortConfig{.local_addresses = {a}, .gso = true});
  UdpPort receiver(loop, UdpPortConfig{.local_addresses = {b}, .gso = true});
  std::vector<world::PacketPtr> got;
  receiver.set_receive_handler([&](world::PacketPtr p) { got.push_back(std::move(p)); });
  constexpr uint32_t kCount = 40;
  for (uint32_t i = 0; i < kCount; ++i) {
    world::PacketPtr p = world::make_packet();
    p->src = {a, 0xC124};
    p->dst = {b, 4791};
    p->dscp = i == 20 ? 26 : 0;  // a DSCP change ends a GSO run
    p->roce = send_only(77, i);
    const uint32_t length = i == 10 ? 100 : 1024;  // a short datagram ends a run too
    p->payload.length = length;
    p->payload.bytes.assign(length, static_cast<std::byte>(i));
    sender.send(std::move(p));
  }
  loop.run_until([&] { return got.size() == kCount; }, loop.now() + Time::s(5));
  ASSERT_EQ(got.size(), kCount);
  for (uint32_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(got[i]->roce.bth.psn, i);
    EXPECT_EQ(got[i]->payload.length, i == 10 ? 100u : 1024u);
    EXPECT_EQ(got[i]->payload.bytes.back(), static_cast<std::byte>(i));
    EXPECT_EQ(got[i]->dscp, i == 20 ? 26 : 0);
  }
  EXPECT_EQ(sender.counters().tx_datagrams, kCount);
  EXPECT_GT(sender.counters().tx_gso_sends, 0u);
  EXPECT_LT(sender.counters().tx_gso_sends, kCount / 4);
  EXPECT_EQ(receiver.counters().rx_bad_icrc, 0u);
  EXPECT_EQ(receiver.counters().rx_delivered, kCount);
}

TEST(UdpPort, RefusesAnAddressThatIsNotLocal) {
  EventLoop loop;
  EXPECT_THROW(UdpPort(loop, UdpPortConfig{.local_addresses = {world::Ipv4::of(192, 0, 2, 1)}}),
               Error);
}

TEST(UdpPort, ASourceThatCannotBeBoundIsCountedNotFatal) {
  EventLoop loop;
  UdpPort port(loop, UdpPortConfig{.local_addresses = {loopback_address(1)}});
  int transmitted = 0;
  port.set_transmit_handler([&] { ++transmitted; });
  world::PacketPtr p = world::make_packet();
  p->src = {world::Ipv4::of(192, 0, 2, 1), 0xC000};  // TEST-NET: not ours
  p->dst = {loopback_address(2), 4791};
  p->roce = send_only(3, 0);
  port.send(std::move(p));
  loop.run_until([&] { return transmitted == 1; }, loop.now() + Time::s(5));
  EXPECT_EQ(transmitted, 1);
  EXPECT_EQ(port.counters().tx_errors, 1u);
  EXPECT_NE(port.last_tx_error().find("192.0.2.1"), std::string::npos);
}

}  // namespace
}  // namespace bifrost::real
