// Baselines for the real-world goodput benchmark (bench/real_loopback.sh): how fast the kernel
// moves bytes between two processes without bifrost.
//   real_socket_blast tcp-recv ADDR PORT               receive a TCP stream, report goodput
//   real_socket_blast tcp-send ADDR PORT SECONDS MSG   send MSG-byte writes for SECONDS
//   real_socket_blast udp-recv ADDR PORT               receive with UDP_GRO, report goodput
//   real_socket_blast udp-send ADDR PORT SECONDS MSG   send MSG-byte buffers cut by UDP GSO into
//                                                       4096-byte datagrams (RoCE MTU 4096)
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

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

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
    throw std::runtime_error("unknown mode " + mode);
  } catch (const std::exception& e) {
    fmt::print(stderr, "real_socket_blast: {}\n", e.what());
    return 1;
  }
}
