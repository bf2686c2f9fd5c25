// Baselines for the real-world goodput benchmark (bench/real_loopback.sh): how fast the kernel
// moves bytes between two processes without bifrost.
//   real_socket_blast tcp-recv ADDR PORT               receive a TCP stream, report goodput
//   real_socket_blast tcp-send ADDR PORT SECONDS MSG   send MSG-byte writes for SECONDS
//   real_socket_blast udp-recv ADDR PORT               receive with UDP_GRO, report goodput
//   real_socket_blast udp-send ADDR PORT SECONDS MSG   send MSG-byte buffers cut by UDP GSO into
//                                                       4096-byte datagrams (RoCE MTU 4096)
//   real_socket_blast roce-send ADDR PORT SECONDS MSG [REGION]   the ceiling of any RoCE data path
//   real_socket_blast roce-noicrc-send ADDR PORT SECONDS MSG [REGION]   on UDP sockets, sending
//                                         from a REGION-byte buffer (default 8 MiB, bifrost-perf's
//                                         128 x 64 KiB): see roce_send below
// The receiver prints one JSON line: {"bytes":..,"seconds":..,"gbps":..}, timed from its
// first to its last received byte. A UDP receiver stops after 300 ms of silence.
#include <arpa/inet.h>
#include <fmt/core.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bifrost/wire/codec.h"
#include "bifrost/wire/icrc.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kSegment = 4096;

[[noreturn]] void die(const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

sockaddr_in address(const char* ip, const char* port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(std::atoi(port)));
  if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) throw std::runtime_error("bad address");
  return a;
}

void set_int(int fd, int level, int name, int value, const char* what) {
  if (setsockopt(fd, level, name, &value, sizeof value) != 0) die(what);
}

void big_buffers(int fd) {
  // As root the buffers may exceed the sysctl limits, as the UDP port's do.
  const int bytes = 16 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0) {
    set_int(fd, SOL_SOCKET, SO_RCVBUF, bytes, "SO_RCVBUF");
  }
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) != 0) {
    set_int(fd, SOL_SOCKET, SO_SNDBUF, bytes, "SO_SNDBUF");
  }
}

// What a receiver counts: bytes, timed from the first to the last one received.
struct Arrivals {
  uint64_t bytes = 0;
  Clock::time_point first, last;

  void add(ssize_t n) {
    last = Clock::now();
    if (bytes == 0) first = last;
    bytes += static_cast<uint64_t>(n);
  }
  void report() const {
    const double s = std::chrono::duration<double>(last - first).count();
    fmt::print("{{\"bytes\": {}, \"seconds\": {:.6f}, \"gbps\": {:.4f}}}\n", bytes, s,
               s > 0 ? static_cast<double>(bytes) * 8 / s / 1e9 : 0.0);
  }
};

int tcp_recv(const sockaddr_in& a) {
  const int l = socket(AF_INET, SOCK_STREAM, 0);
  set_int(l, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
  if (bind(l, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) die("bind");
  if (listen(l, 1) != 0) die("listen");
  const int fd = accept(l, nullptr, nullptr);
  if (fd < 0) die("accept");
  std::vector<char> buf(1 << 20);
  Arrivals got;
  for (;;) {
    const ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    if (n < 0) die("recv");
    if (n == 0) break;
    got.add(n);
  }
  got.report();
  return 0;
}

int tcp_send(const sockaddr_in& a, double seconds, size_t msg) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  for (int attempt = 0; connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0;) {
    if (++attempt == 50) die("connect");
    usleep(100'000);
  }
  std::vector<char> buf(msg, 'x');
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    for (size_t off = 0; off < msg;) {
      const ssize_t n = send(fd, buf.data() + off, msg - off, 0);
      if (n < 0) die("send");
      off += static_cast<size_t>(n);
    }
  }
  close(fd);
  return 0;
}

int udp_recv(const sockaddr_in& a) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  big_buffers(fd);
  set_int(fd, SOL_UDP, UDP_GRO, 1, "UDP_GRO");
  if (bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) die("bind");
  std::vector<char> buf(1 << 16);
  Arrivals got;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    // Wait for the first datagram as long as it takes, then stop at 300 ms of silence.
    if (poll(&p, 1, got.bytes == 0 ? 30'000 : 300) <= 0) break;
    const ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    if (n < 0) die("recv");
    got.add(n);
  }
  got.report();
  return 0;
}

int udp_send(const sockaddr_in& a, double seconds, size_t msg) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  big_buffers(fd);
  set_int(fd, SOL_UDP, UDP_SEGMENT, kSegment, "UDP_SEGMENT (kernel without UDP GSO?)");
  if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) die("connect");
  // A GSO send holds at most 64 segments and 64 KiB of payload.
  const size_t chunk = std::min<size_t>(msg, 65507 / kSegment * kSegment);
  std::vector<char> buf(chunk, 'x');
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    for (size_t off = 0; off < msg; off += chunk) {
      if (send(fd, buf.data(), std::min(chunk, msg - off), 0) < 0 && errno != ENOBUFS) {
        die("send");
      }
    }
  }
  return 0;
}

// The same bytes shaped as a soft RNIC must send them: each MSG-byte message is one UC WRITE
// of MTU-sized packets, FIRST (BTH + RETH), MIDDLEs (BTH), LAST (BTH + ImmDt), each datagram
// sent from three buffers (headers, the payload in place in the region, the ICRC) and, with
// `icrc`, its ICRC computed over the payload as it is read. GSO needs equal segments (only the
// last may be shorter), so a message takes three sends, grouped as bifrost's UdpPort groups
// them: FIRST with the first MIDDLE, the other MIDDLEs, LAST. Nothing else of a NIC runs here
// (no QP state, no completions, no ACKs): what it reaches bounds any data path built this way.
int roce_send(const sockaddr_in& a, double seconds, size_t msg, size_t region_bytes, bool icrc) {
  using namespace bifrost;
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  big_buffers(fd);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) die("connect");
  const size_t packets = msg / kSegment;
  // The MIDDLE run is one GSO send: at most 64 KiB of UDP payload.
  if (msg % kSegment != 0 || packets < 3 || packets > 16 || region_bytes < msg) {
    throw std::runtime_error(
        "roce-send wants MSG a multiple of 4096 up to 64 KiB (3 to 16 "
        "packets) and REGION >= MSG");
  }
  std::vector<std::byte> region(region_bytes, std::byte{0x5a});
  // Per packet: its header bytes (BTH + RETH or ImmDt) and its ICRC.
  struct Packet {
    std::byte head[wire::kBthSize + wire::kRethSize];
    size_t head_size = wire::kBthSize;
    std::byte icrc[wire::kIcrcSize]{};
  };
  std::vector<Packet> packet(packets);
  packet.front().head_size = wire::kBthSize + wire::kRethSize;
  packet.back().head_size = wire::kBthSize + wire::kImmDtSize;
  const std::array<std::byte, 20> ip{};  // the masked fields' values do not change the cost
  const std::array<std::byte, 8> udp{};
  std::vector<iovec> iov(packets * 3);
  // [FIRST, MIDDLE], [MIDDLE x (packets - 3)], [LAST]; a 3-packet message has no middle run.
  const size_t groups[3][2] = {{0, 2}, {2, packets - 1}, {packets - 1, packets}};
  std::vector<mmsghdr> msgs(3);
  std::vector<std::array<char, CMSG_SPACE(sizeof(uint16_t))>> control(3);
  size_t offset = 0;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    if (offset + msg > region.size()) offset = 0;
    size_t m = 0;
    for (const auto& [from, to] : groups) {
      if (from == to) continue;
      for (size_t k = from; k < to; ++k) {
        Packet& p = packet[k];
        const std::span<const std::byte> payload(region.data() + offset + k * kSegment, kSegment);
        if (icrc) {
          const std::span<const std::byte> more[] = {payload};
          wire::store_icrc(
              wire::icrc_ipv4(ip, udp, std::span<const std::byte>(p.head, p.head_size), more),
              std::span<std::byte, wire::kIcrcSize>(p.icrc, wire::kIcrcSize));
        }
        iov[3 * k] = {p.head, p.head_size};
        iov[3 * k + 1] = {const_cast<std::byte*>(payload.data()), payload.size()};
        iov[3 * k + 2] = {p.icrc, sizeof p.icrc};
      }
      msghdr& h = msgs[m].msg_hdr;
      h = msghdr{};
      h.msg_iov = &iov[3 * from];
      h.msg_iovlen = 3 * (to - from);
      if (to - from > 1) {
        h.msg_control = control[m].data();
        h.msg_controllen = control[m].size();
        cmsghdr* c = CMSG_FIRSTHDR(&h);
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        const auto segment = static_cast<uint16_t>(packet[from].head_size + kSegment + 4);
        std::memcpy(CMSG_DATA(c), &segment, sizeof segment);
      }
      ++m;
    }
    for (size_t done = 0; done < m;) {
      const int n = sendmmsg(fd, msgs.data() + done, static_cast<unsigned>(m - done), 0);
      if (n < 0) {
        if (errno == ENOBUFS) continue;
        die("sendmmsg");
      }
      done += static_cast<size_t>(n);
    }
    offset += msg;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 4) throw std::runtime_error("usage: see the top of real_socket_blast.cc");
    const std::string mode = argv[1];
    const sockaddr_in a = address(argv[2], argv[3]);
    const bool sender = mode.ends_with("-send");
    if (sender && argc < 6) throw std::runtime_error("senders need SECONDS and MSG");
    const double seconds = sender ? std::atof(argv[4]) : 0;
    const size_t msg = sender ? static_cast<size_t>(std::atol(argv[5])) : 0;
    if (mode == "tcp-recv") return tcp_recv(a);
    if (mode == "tcp-send") return tcp_send(a, seconds, msg);
    if (mode == "udp-recv") return udp_recv(a);
    if (mode == "udp-send") return udp_send(a, seconds, msg);
    const size_t region = argc > 6 ? static_cast<size_t>(std::atol(argv[6])) : size_t{8} << 20;
    if (mode == "roce-send") return roce_send(a, seconds, msg, region, true);
    if (mode == "roce-noicrc-send") return roce_send(a, seconds, msg, region, false);
    throw std::runtime_error("unknown mode " + mode);
  } catch (const std::exception& e) {
    fmt::print(stderr, "real_socket_blast: {}\n", e.what());
    return 1;
  }
}
