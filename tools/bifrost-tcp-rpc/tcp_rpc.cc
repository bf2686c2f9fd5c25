#include "tcp_rpc.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"

namespace bifrost::tcp_rpc {
namespace {

using Clock = std::chrono::steady_clock;

void write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("TCP send failed: {}", std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Reads exactly `size` bytes. Returns false on EOF before the first byte (the peer closed
// between messages); an EOF inside a message is an error.
bool read_all(int fd, uint8_t* data, size_t size) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::recv(fd, data + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("TCP receive failed: {}", std::strerror(errno));
    if (n == 0) {
      if (got == 0) return false;
      throw Error("the peer closed the connection in the middle of a message ({} of {} bytes)", got,
                  size);
    }
    got += static_cast<size_t>(n);
  }
  return true;
}

// The header: request size, response size, verify flag; network byte order.
struct Header {
  uint32_t request_size;
  uint32_t response_size;
  uint32_t verify;
};

class Phase {
 public:
  Phase() : start_(Clock::now()), cpu_start_(real::process_cpu_seconds()) {}
  void close(RpcTally& t) const {
    t.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    t.cpu_seconds = real::process_cpu_seconds() - cpu_start_;
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  Clock::time_point start_;
  double cpu_start_;
};

}  // namespace

void fill_pattern(uint8_t* data, uint32_t size, uint64_t index) {
  for (uint32_t i = 0; i < size; ++i) data[i] = static_cast<uint8_t>((index * 131 + i) % 251);
}

bool matches_pattern(const uint8_t* data, uint32_t size, uint64_t index) {
  for (uint32_t i = 0; i < size; ++i) {
    if (data[i] != static_cast<uint8_t>((index * 131 + i) % 251)) return false;
  }
  return true;
}

RpcTally run_client(int fd, const RpcShape& shape, double seconds, uint64_t count) {
  if (shape.request_size == 0 || shape.depth == 0) {
    throw Error("request size and depth must be at least 1");
  }
  const Header h{htonl(shape.request_size), htonl(shape.response_size), htonl(shape.verify)};
  write_all(fd, reinterpret_cast<const uint8_t*>(&h), sizeof h);
  std::vector<uint8_t> request(shape.request_size), response(shape.response_size);
  RpcTally t;
  t.request_size = shape.request_size;
  t.response_size = shape.response_size;
  const Phase phase;
  uint64_t sent = 0;
  const auto more = [&] { return count > 0 ? sent < count : phase.elapsed() < seconds; };
  const auto send_one = [&] {
    if (shape.verify) fill_pattern(request.data(), shape.request_size, sent);
    write_all(fd, request.data(), request.size());
    ++sent;
  };
  while (sent < shape.depth && more()) send_one();
  while (t.requests < sent) {
    if (!read_all(fd, response.data(), response.size())) {
      throw Error("the server closed the connection with {} requests unanswered",
                  sent - t.requests);
    }
    if (shape.verify && !matches_pattern(response.data(), shape.response_size, t.requests)) {
      throw Error("response {} is corrupt", t.requests);
    }
    ++t.requests;
    if (more()) send_one();
  }
  phase.close(t);
  t.request_bytes = t.requests * shape.request_size;
  ::shutdown(fd, SHUT_WR);
  return t;
}

RpcTally run_server(int fd, bool verify) {
  Header h{};
  if (!read_all(fd, reinterpret_cast<uint8_t*>(&h), sizeof h)) {
    throw Error("the client closed the connection before its header");
  }
  const uint32_t request_size = ntohl(h.request_size), response_size = ntohl(h.response_size);
  verify = verify || ntohl(h.verify) != 0;
  if (request_size == 0 || request_size > (1u << 30) || response_size > (1u << 30)) {
    throw Error("bad header: request {} B, response {} B", request_size, response_size);
  }
  std::vector<uint8_t> request(request_size), response(response_size);
  RpcTally t;
  t.request_size = request_size;
  t.response_size = response_size;
  const Phase phase;
  while (read_all(fd, request.data(), request.size())) {
    if (verify && !matches_pattern(request.data(), request_size, t.requests)) {
      throw Error("request {} is corrupt", t.requests);
    }
    if (verify) fill_pattern(response.data(), response_size, t.requests);
    write_all(fd, response.data(), response.size());
    ++t.requests;
  }
  phase.close(t);
  t.request_bytes = t.requests * request_size;
  return t;
}

}  // namespace bifrost::tcp_rpc
