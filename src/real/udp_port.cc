#include "bifrost/real/udp_port.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/wire/codec.h"

namespace bifrost::real {
namespace {

constexpr size_t kControlBytes = 256;  // room for PKTINFO, TOS, TIMESTAMPNS and RXQ_OVFL
constexpr size_t kTxControlBytes = CMSG_SPACE(sizeof(int));

sockaddr_in to_sockaddr(const world::Endpoint& ep) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(ep.ip.value);
  sa.sin_port = htons(ep.port);
  return sa;
}

uint64_t endpoint_key(const world::Endpoint& ep) {
  return (uint64_t{ep.ip.value} << 16) | ep.port;
}

void set_buffer(int fd, int level_force, int level, int bytes) {
  // SO_*BUFFORCE passes rmem_max/wmem_max as root; without privileges fall back to the capped
  // option, which is still better than the default.
  if (setsockopt(fd, SOL_SOCKET, level_force, &bytes, sizeof bytes) != 0) {
    setsockopt(fd, SOL_SOCKET, level, &bytes, sizeof bytes);
  }
}

void set_int(int fd, int level, int name, int value, const char* what) {
  if (setsockopt(fd, level, name, &value, sizeof value) != 0) {
    throw Error("udp port: setsockopt {} failed: {}", what, std::strerror(errno));
  }
}

int make_socket(const world::Endpoint& bind_to, int buffer_bytes, std::string& error) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = fmt::format("socket() failed: {}", std::strerror(errno));
    return -1;
  }
  // DF on every datagram (RoCE never fragments) and therefore IP id 0 on unconnected sockets.
  const int pmtu = IP_PMTUDISC_DO;
  setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
  set_buffer(fd, SO_SNDBUFFORCE, SO_SNDBUF, buffer_bytes);
  set_buffer(fd, SO_RCVBUFFORCE, SO_RCVBUF, buffer_bytes);
  const sockaddr_in sa = to_sockaddr(bind_to);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    error = fmt::format("cannot bind UDP {}: {}", world::to_string(bind_to), std::strerror(errno));
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

UdpPort::UdpPort(EventLoop& loop, UdpPortConfig config)
    : loop_(loop), config_(std::move(config)), datagram_(config_.max_datagram) {
  if (config_.local_addresses.empty()) throw Error("udp port: give at least one local address");
  if (config_.batch == 0) throw Error("udp port: batch must be at least 1");
  const size_t batch = config_.batch;
  tx_msgs_.resize(batch);
  tx_iov_.resize(batch);
  tx_control_.resize(batch * kTxControlBytes);
  rx_bytes_.resize(batch * (datagram_ + 1));
  rx_msgs_.resize(batch);
  rx_iov_.resize(batch);
  rx_names_.resize(batch);
  rx_control_.resize(batch * kControlBytes);
  tx_ring_.resize(64);
  tx_bytes_.resize(64 * datagram_);
  realtime_offset_ns_ = realtime_minus_monotonic_ns();
  realtime_offset_taken_ = monotonic_now();

  for (const world::Ipv4 address : config_.local_addresses) {
    std::string error;
    const int fd = make_socket({address, config_.listen_port}, config_.socket_buffer_bytes, error);
    if (fd < 0) {
      for (const RxSocket& s : rx_sockets_) ::close(s.fd);
      throw Error(
          "udp port: {} (is {} an address of this host, and is nothing else using "
          "port {} on it?)",
          error, world::to_string(address), config_.listen_port);
    }
    set_int(fd, IPPROTO_IP, IP_PKTINFO, 1, "IP_PKTINFO");
    set_int(fd, IPPROTO_IP, IP_RECVTOS, 1, "IP_RECVTOS");
    set_int(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS");
    set_int(fd, SOL_SOCKET, SO_RXQ_OVFL, 1, "SO_RXQ_OVFL");
    rx_sockets_.push_back(RxSocket{fd, address});
  }
  for (size_t i = 0; i < rx_sockets_.size(); ++i) {
    loop_.add_fd(rx_sockets_[i].fd, EPOLLIN, [this, i](uint32_t) { receive(rx_sockets_[i]); });
  }
}

UdpPort::~UdpPort() {
  for (const RxSocket& s : rx_sockets_) {
    loop_.remove_fd(s.fd);
    ::close(s.fd);
  }
  for (const int fd : blocked_fds_) loop_.remove_fd(fd);
  for (const auto& [key, fd] : tx_sockets_) ::close(fd);
}

Time UdpPort::mean_rx_queueing() const {
  if (rx_queueing_samples_ == 0) return Time::zero();
  return rx_queueing_sum_ / static_cast<int64_t>(rx_queueing_samples_);
}

int UdpPort::source_socket(const world::Endpoint& src) {
  const uint64_t key = endpoint_key(src);
  if (const auto it = tx_sockets_.find(key); it != tx_sockets_.end()) return it->second;
  std::string error;
  const int fd = make_socket(src, config_.socket_buffer_bytes, error);
  if (fd < 0) {
    last_tx_error_ = error;
    return -1;
  }
  tx_sockets_.emplace(key, fd);
  return fd;
}

void UdpPort::grow_ring() {
  // Re-lays the ring out in order from index 0 with twice the room (rare: only when the
  // device keeps more packets in the port than ever before).
  const size_t old_cap = tx_ring_.size();
  std::vector<TxItem> ring(old_cap * 2);
  std::vector<std::byte> bytes(old_cap * 2 * datagram_);
  for (size_t i = 0; i < tx_count_; ++i) {
    const size_t from = (tx_head_ + i) & (old_cap - 1);
    ring[i] = tx_ring_[from];
    std::memcpy(bytes.data() + i * datagram_, tx_buffer(from), tx_ring_[from].length);
  }
  tx_ring_.swap(ring);
  tx_bytes_.swap(bytes);
  tx_head_ = 0;
}

void UdpPort::send(world::PacketPtr packet) {
  const world::Packet& p = *packet;
  // Counted and dropped like a wire error, but still reported as transmitted: the device
  // keeps a count of packets in the port and would stall otherwise.
  auto fail = [&](std::string why) {
    ++counters_.tx_errors;
    last_tx_error_ = std::move(why);
    loop_.defer([this] { transmitted(); });
  };
  const int fd = source_socket(p.src);
  if (fd < 0) return fail(last_tx_error_);
  if (tx_count_ == tx_ring_.size()) grow_ring();
  const size_t index = (tx_head_ + tx_count_) & (tx_ring_.size() - 1);

  std::span<const std::byte> payload = p.payload.bytes;
  if (payload.size() != p.payload.length) {
    // A payload named by token only (simulation content): materialize its bytes.
    scratch_payload_.resize(p.payload.length);
    rnic::materialize(p.payload, scratch_payload_);
    payload = scratch_payload_;
  }
  const wire::IpUdpInfo ip{.src_ip = p.src.ip.value,
                           .dst_ip = p.dst.ip.value,
                           .src_port = p.src.port,
                           .dst_port = p.dst.port,
                           .dscp = p.dscp,
                           .ecn = p.ecn,
                           .ttl = 64,
                           .ip_id = 0};
  const auto size = wire::encode_udp_payload(ip, p.roce, payload, {tx_buffer(index), datagram_});
  if (!size) {
    return fail(fmt::format("cannot encode a packet to {}: {}", world::to_string(p.dst),
                            wire::describe(size.error)));
  }
  tx_ring_[index] = TxItem{.fd = fd,
                           .dst = to_sockaddr(p.dst),
                           .length = static_cast<uint32_t>(size.value),
                           .tos = static_cast<uint8_t>((p.dscp << 2) | (p.ecn & 3))};
  ++tx_count_;
  packet.reset();
  schedule_flush();
}

void UdpPort::schedule_flush() {
  if (flush_scheduled_ || flushing_ || blocked_) return;
  flush_scheduled_ = true;
  loop_.defer([this] {
    flush_scheduled_ = false;
    flush();
  });
}

void UdpPort::flush() {
  flushing_ = true;
  while (tx_count_ > 0 && !blocked_) {
    if (!flush_run()) break;
  }
  flushing_ = false;
}

void UdpPort::pop_head_transmitted() {
  tx_head_ = (tx_head_ + 1) & (tx_ring_.size() - 1);
  --tx_count_;
  transmitted();  // may call send(): it appends to the ring, which flush() keeps draining
}

void UdpPort::drop_head(const std::string& why) {
  ++counters_.tx_errors;
  last_tx_error_ = why;
  pop_head_transmitted();
}

bool UdpPort::flush_run() {
  const size_t cap = tx_ring_.size();
  const int fd = tx_ring_[tx_head_].fd;
  size_t n = 0;
  while (n < tx_count_ && n < config_.batch) {
    const size_t index = (tx_head_ + n) & (cap - 1);
    TxItem& item = tx_ring_[index];
    if (item.fd != fd) break;
    tx_iov_[n] = iovec{tx_buffer(index), item.length};
    msghdr& h = tx_msgs_[n].msg_hdr;
    h = msghdr{};
    h.msg_name = &item.dst;
    h.msg_namelen = sizeof item.dst;
    h.msg_iov = &tx_iov_[n];
    h.msg_iovlen = 1;
    if (item.tos != 0) {
      // Per-datagram DSCP/ECN; the socket default is 0.
      std::byte* control = tx_control_.data() + n * kTxControlBytes;
      std::memset(control, 0, kTxControlBytes);
      h.msg_control = control;
      h.msg_controllen = kTxControlBytes;
      cmsghdr* c = CMSG_FIRSTHDR(&h);
      c->cmsg_level = IPPROTO_IP;
      c->cmsg_type = IP_TOS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      const int tos = item.tos;
      std::memcpy(CMSG_DATA(c), &tos, sizeof tos);
    }
    ++n;
  }
  const int sent = ::sendmmsg(fd, tx_msgs_.data(), static_cast<unsigned>(n), MSG_DONTWAIT);
  if (sent < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
      // The socket's send buffer is full: wait for room instead of spinning.
      ++counters_.tx_would_block;
      blocked_ = true;
      blocked_fds_.push_back(fd);
      loop_.add_fd(fd, EPOLLOUT, [this, fd](uint32_t) { on_writable(fd); });
      return false;
    }
    const int error = errno;
    const TxItem& item = tx_ring_[tx_head_];
    drop_head(fmt::format("sendmmsg to {}:{} refused a {}-byte datagram: {}",
                          inet_ntoa(item.dst.sin_addr), ntohs(item.dst.sin_port), item.length,
                          std::strerror(error)));
    return true;
  }
  ++counters_.tx_calls;
  for (int i = 0; i < sent; ++i) {
    ++counters_.tx_datagrams;
    counters_.tx_bytes += tx_ring_[tx_head_].length;
    pop_head_transmitted();
  }
  return true;
}

void UdpPort::on_writable(int fd) {
  loop_.remove_fd(fd);
  std::erase(blocked_fds_, fd);
  blocked_ = false;
  flush();
}

void UdpPort::receive(RxSocket& socket) {
  const size_t batch = config_.batch;
  for (size_t i = 0; i < batch; ++i) {
    rx_iov_[i] = iovec{rx_bytes_.data() + i * (datagram_ + 1), datagram_ + 1};
    msghdr& h = rx_msgs_[i].msg_hdr;
    h = msghdr{};
    h.msg_name = &rx_names_[i];
    h.msg_namelen = sizeof(sockaddr_in);
    h.msg_iov = &rx_iov_[i];
    h.msg_iovlen = 1;
    h.msg_control = rx_control_.data() + i * kControlBytes;
    h.msg_controllen = kControlBytes;
  }
  const int n =
      ::recvmmsg(socket.fd, rx_msgs_.data(), static_cast<unsigned>(batch), MSG_DONTWAIT, nullptr);
  if (n <= 0) return;  // EAGAIN: another pass got there first
  ++counters_.rx_calls;
  // The realtime-monotonic offset is refreshed once a second: it drifts only with NTP slews.
  const Time now = monotonic_now();
  if (now - realtime_offset_taken_ > Time::s(1)) {
    realtime_offset_ns_ = realtime_minus_monotonic_ns();
    realtime_offset_taken_ = now;
  }
  for (int i = 0; i < n; ++i) {
    handle_datagram(socket, static_cast<size_t>(i), rx_msgs_[static_cast<size_t>(i)].msg_len);
  }
}

void UdpPort::handle_datagram(RxSocket& socket, size_t index, size_t length) {
  ++counters_.rx_datagrams;
  counters_.rx_bytes += length;
  msghdr& h = rx_msgs_[index].msg_hdr;
  if ((h.msg_flags & MSG_TRUNC) != 0 || length > datagram_) {
    ++counters_.rx_truncated;
    return;
  }
  bool have_destination = false;
  world::Ipv4 destination = socket.address;
  uint8_t tos = 0;
  Time arrival;
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      in_pktinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof info);
      destination = world::Ipv4{ntohl(info.ipi_addr.s_addr)};
      have_destination = true;
    } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
      std::memcpy(&tos, CMSG_DATA(c), 1);
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      // Clamped to now: the sampled clock offset may be off by a little, and a completion
      // must never be stamped after the loop's present.
      const Time now = monotonic_now();
      arrival = std::min(
          now, Time::ns(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec - realtime_offset_ns_));
      last_rx_kernel_time_ = arrival;
      rx_queueing_sum_ += now - arrival;
      ++rx_queueing_samples_;
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
      uint32_t overflow = 0;
      std::memcpy(&overflow, CMSG_DATA(c), sizeof overflow);
      // A cumulative count per socket (wrapping at 2^32): sum each socket's own deltas.
      counters_.rx_kernel_drops += static_cast<uint32_t>(overflow - socket.overflow_seen);
      socket.overflow_seen = overflow;
    }
  }
  if (!have_destination) {
    ++counters_.rx_no_destination;
    return;
  }
  const sockaddr_in& from = rx_names_[index];
  const std::span<const std::byte> datagram(rx_bytes_.data() + index * (datagram_ + 1), length);
  const wire::IpUdpInfo ip{.src_ip = ntohl(from.sin_addr.s_addr),
                           .dst_ip = destination.value,
                           .src_port = ntohs(from.sin_port),
                           .dst_port = config_.listen_port,
                           .dscp = static_cast<uint8_t>(tos >> 2),
                           .ecn = static_cast<uint8_t>(tos & 3),
                           .ttl = 64,
                           .ip_id = 0};
  const auto view = wire::decode_udp_payload(datagram);
  if (!view) {
    ++counters_.rx_malformed;
    return;
  }
  if (!wire::icrc_matches(ip, datagram)) {
    ++counters_.rx_bad_icrc;
    return;
  }
  world::PacketPtr packet = world::make_packet();
  packet->src = world::Endpoint{world::Ipv4{ip.src_ip}, ip.src_port};
  packet->dst = world::Endpoint{destination, config_.listen_port};
  packet->dscp = ip.dscp;
  packet->ecn = ip.ecn;
  packet->arrival = arrival;
  packet->roce = view.value.headers;
  packet->payload.length = static_cast<uint32_t>(view.value.payload.size());
  packet->payload.bytes.assign(view.value.payload.begin(), view.value.payload.end());
  ++counters_.rx_delivered;
  deliver(std::move(packet));
}

}  // namespace bifrost::real
