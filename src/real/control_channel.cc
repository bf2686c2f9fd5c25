#include "bifrost/real/control_channel.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"

namespace bifrost::real {
namespace {

constexpr size_t kMaxMessageBytes = 1 << 20;

sockaddr_in resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &result);
  if (rc != 0 || result == nullptr) {
    throw Error("cannot resolve '{}': {}", host, gai_strerror(rc));
  }
  sockaddr_in sa{};
  std::memcpy(&sa, result->ai_addr, sizeof sa);
  freeaddrinfo(result);
  sa.sin_port = htons(port);
  return sa;
}

int wait_ms(Time deadline) {
  const Time left = deadline - monotonic_now();
  if (left <= Time::zero()) return 0;
  return static_cast<int>(std::min<int64_t>(left.picoseconds() / 1'000'000'000 + 1, 1 << 30));
}

world::Ipv4 address_of(int fd, bool peer) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  if (peer) {
    getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  } else {
    getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  }
  return world::Ipv4{ntohl(sa.sin_addr.s_addr)};
}

}  // namespace

ControlChannel::ControlChannel(int fd, std::string peer_name)
    : fd_(fd), peer_name_(std::move(peer_name)) {
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

ControlChannel::ControlChannel(ControlChannel&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      peer_name_(std::move(other.peer_name_)),
      buffer_(std::move(other.buffer_)) {}

ControlChannel& ControlChannel::operator=(ControlChannel&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    peer_name_ = std::move(other.peer_name_);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

ControlChannel::~ControlChannel() {
  if (fd_ >= 0) ::close(fd_);
}

ControlChannel ControlChannel::connect(const std::string& host, uint16_t port, Time timeout) {
  const sockaddr_in sa = resolve(host, port);
  const std::string name = fmt::format("{}:{}", host, port);
  const Time deadline = monotonic_now() + timeout;
  std::string last_error;
  int attempts = 0;
  while (true) {
    ++attempts;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw Error("socket() failed: {}", std::strerror(errno));
    // A bounded connect: a black-holed address must not block past the deadline.
    timeval tv{.tv_sec = 1, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0) {
      return ControlChannel(fd, name);
    }
    last_error = std::strerror(errno);
    ::close(fd);
    if (monotonic_now() + Time::ms(100) >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw Error(
      "no bifrost-perf server at {}: {} attempts over {:.1f} s, last error: {} (is the "
      "server running, and is the address and port right?)",
      name, attempts, timeout.seconds(), last_error);
}

ControlChannel ControlChannel::accept(const std::string& bind_ip, uint16_t port, Time timeout) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) throw Error("socket() failed: {}", std::strerror(errno));
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const sockaddr_in sa = resolve(bind_ip, port);
  if (::bind(listener, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 ||
      ::listen(listener, 1) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listener);
    throw Error("cannot listen on {}:{}: {}", bind_ip, port, why);
  }
  pollfd p{.fd = listener, .events = POLLIN, .revents = 0};
  const int ready = ::poll(&p, 1, wait_ms(monotonic_now() + timeout));
  if (ready <= 0) {
    ::close(listener);
    throw Error("no client connected to {}:{} within {:.1f} s", bind_ip, port, timeout.seconds());
  }
  sockaddr_in peer{};
  socklen_t len = sizeof peer;
  const int fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
  const std::string why = std::strerror(errno);
  ::close(listener);
  if (fd < 0) throw Error("accept failed: {}", why);
  return ControlChannel(fd, fmt::format("{}:{}", inet_ntoa(peer.sin_addr), ntohs(peer.sin_port)));
}

void ControlChannel::send(const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error("control connection to {} lost while sending: {}", peer_name_,
                  std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
}

void ControlChannel::send_error(const std::string& text) noexcept {
  try {
    send(nlohmann::json{{"error", text}});
  } catch (...) {  // the peer is gone: nothing to tell
  }
}

bool ControlChannel::readable() {
  if (buffer_.find('\n') != std::string::npos) return true;
  pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, 0) > 0;
}

nlohmann::json ControlChannel::receive(Time timeout) {
  const Time deadline = monotonic_now() + timeout;
  size_t newline = buffer_.find('\n');
  while (newline == std::string::npos) {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&p, 1, wait_ms(deadline));
    if (ready == 0) {
      throw Error("control connection to {}: no answer within {:.1f} s", peer_name_,
                  timeout.seconds());
    }
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error("control connection to {} closed by the peer{}", peer_name_,
                  n < 0 ? fmt::format(" ({})", std::strerror(errno)) : "");
    }
    buffer_.append(chunk, static_cast<size_t>(n));
    if (buffer_.size() > kMaxMessageBytes) {
      throw Error("control connection to {}: message longer than {} bytes", peer_name_,
                  kMaxMessageBytes);
    }
    newline = buffer_.find('\n');
  }
  const std::string line = buffer_.substr(0, newline);
  buffer_.erase(0, newline + 1);
  nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
  if (message.is_discarded() || !message.is_object()) {
    throw Error(
        "control connection to {}: the peer sent something that is not a bifrost "
        "message (is it a bifrost-perf of this version?)",
        peer_name_);
  }
  if (message.contains("error")) {
    throw Error("peer {}: {}", peer_name_, message["error"].dump());
  }
  return message;
}

world::Ipv4 ControlChannel::local_ip() const {
  return address_of(fd_, false);
}

world::Ipv4 ControlChannel::peer_ip() const {
  return address_of(fd_, true);
}

}  // namespace bifrost::real
