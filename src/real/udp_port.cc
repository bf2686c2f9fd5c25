#include "bifrost/real/udp_port.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/udp.h>
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

constexpr size_t kControlBytes = 256;  // room for PKTINFO, TOS, TIMESTAMPNS, RXQ_OVFL, GRO
// IP_TOS (an int) and UDP_SEGMENT (a uint16_t) per message.
constexpr size_t kTxControlBytes = 2 * CMSG_SPACE(sizeof(int));
// GSO: Linux cuts at most 64 segments (UDP_MAX_SEGMENTS) from one send of at most 64 KiB of
// UDP payload; GRO hands back at most 64 KiB at once.
constexpr size_t kMaxGsoSegments = 64;
constexpr size_t kMaxGsoBytes = 65000;
constexpr size_t kGroBufferBytes = 65536;
// sendmmsg calls per flush pass (each up to `batch` messages).
constexpr size_t kFlushCallsPerPass = 2;

// Writes one control message at `control + used` (room and alignment are the caller's);
// returns the bytes used after it.
template <typename T>
size_t add_cmsg(std::byte* control, size_t used, int level, int type, T value) {
  auto* c = reinterpret_cast<cmsghdr*>(control + used);
  c->cmsg_level = level;
  c->cmsg_type = type;
  c->cmsg_len = CMSG_LEN(sizeof(T));
  std::memcpy(CMSG_DATA(c), &value, sizeof value);
  return used + CMSG_SPACE(sizeof(T));
}

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
  rx_slot_ = config_.gso ? kGroBufferBytes : datagram_ + 1;
  tx_msgs_.resize(batch);
  tx_msg_items_.resize(batch);
  tx_iov_.resize(batch * (config_.gso ? kMaxGsoSegments : 1) * kIovPerDatagram);
  tx_control_.resize(batch * kTxControlBytes);
  rx_bytes_.resize(batch * rx_slot_);
  rx_msgs_.resize(batch);
  rx_iov_.resize(batch);
  rx_names_.resize(batch);
  rx_control_.resize(batch * kControlBytes);
  tx_ring_.resize(64);
  tx_bytes_.resize(64 * kItemBytes);
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
    if (config_.gso) set_int(fd, SOL_UDP, UDP_GRO, 1, "UDP_GRO (kernels before 5.0 lack it)");
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
  std::vector<std::byte> bytes(old_cap * 2 * kItemBytes);
  for (size_t i = 0; i < tx_count_; ++i) {
    const size_t from = (tx_head_ + i) & (old_cap - 1);
    ring[i] = std::move(tx_ring_[from]);
    std::memcpy(bytes.data() + i * kItemBytes, item_bytes(from), kItemBytes);
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

  if (p.payload.real_bytes().size() != p.payload.length) {
    // A payload named by token only (simulation content): materialize its bytes.
    scratch_payload_.resize(p.payload.length);
    rnic::materialize(p.payload, scratch_payload_);
    packet->payload.bytes.swap(scratch_payload_);
  }
  const std::span<const std::byte> payload = p.payload.real_bytes();
  const wire::IpUdpInfo ip{.src_ip = p.src.ip.value,
                           .dst_ip = p.dst.ip.value,
                           .src_port = p.src.port,
                           .dst_port = p.dst.port,
                           .dscp = p.dscp,
                           .ecn = p.ecn,
                           .ttl = 64,
                           .ip_id = 0};
  std::byte* bytes = item_bytes(index);
  const auto sizes = wire::encode_udp_gather(
      ip, p.roce, payload, {bytes, kTailOffset},
      std::span<std::byte, wire::kMaxGatherTail>(bytes + kTailOffset, wire::kMaxGatherTail));
  if (!sizes) {
    return fail(fmt::format("cannot encode a packet to {}: {}", world::to_string(p.dst),
                            wire::describe(sizes.error)));
  }
  const size_t length = sizes.value.head + payload.size() + sizes.value.tail;
  if (length > datagram_) {
    return fail(fmt::format("a {}-byte datagram to {} is above the port's largest ({} bytes)",
                            length, world::to_string(p.dst), datagram_));
  }
  tx_ring_[index] = TxItem{.fd = fd,
                           .dst = to_sockaddr(p.dst),
                           .length = static_cast<uint32_t>(length),
                           .tos = static_cast<uint8_t>((p.dscp << 2) | (p.ecn & 3)),
                           .head = static_cast<uint8_t>(sizes.value.head),
                           .tail = static_cast<uint8_t>(sizes.value.tail),
                           .packet = std::move(packet)};
  ++tx_count_;
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
  // The device refills the ring from transmitted(), so one pass could send everything its QPs
  // hold (megabytes) while the receive sockets wait: a pass makes a few kernel calls, then the
  // rest goes in a later pass, after the loop has polled the sockets.
  flushing_ = true;
  for (size_t calls = 0; tx_count_ > 0 && !blocked_ && calls < kFlushCallsPerPass; ++calls) {
    if (!flush_run()) break;
  }
  flushing_ = false;
  if (tx_count_ > 0) schedule_flush();
}

size_t UdpPort::gather(size_t ring_index, iovec* iov) {
  TxItem& item = tx_ring_[ring_index];
  std::byte* bytes = item_bytes(ring_index);
  const std::span<const std::byte> payload = item.packet->payload.real_bytes();
  size_t n = 0;
  iov[n++] = iovec{bytes, item.head};
  if (!payload.empty()) iov[n++] = iovec{const_cast<std::byte*>(payload.data()), payload.size()};
  iov[n++] = iovec{bytes + kTailOffset, item.tail};
  return n;
}

void UdpPort::pop_head_transmitted(Time departure) {
  tx_ring_[tx_head_].packet.reset();  // back to the pool: the kernel has the bytes
  tx_head_ = (tx_head_ + 1) & (tx_ring_.size() - 1);
  --tx_count_;
  transmitted(departure);  // may call send(): it appends to the ring, which flush() keeps draining
}

void UdpPort::drop_head(const std::string& why) {
  ++counters_.tx_errors;
  last_tx_error_ = why;
  pop_head_transmitted();
}

size_t UdpPort::gso_run(size_t first, size_t available) const {
  const size_t cap = tx_ring_.size();
  const TxItem& a = tx_ring_[first];
  size_t count = 1;
  size_t bytes = a.length;
  while (count < available && count < kMaxGsoSegments) {
    const TxItem& b = tx_ring_[(first + count) & (cap - 1)];
    if (b.fd != a.fd || b.tos != a.tos || b.dst.sin_addr.s_addr != a.dst.sin_addr.s_addr ||
        b.dst.sin_port != a.dst.sin_port || b.length > a.length ||
        bytes + b.length > kMaxGsoBytes) {
      break;
    }
    ++count;
    bytes += b.length;
    if (b.length < a.length) break;  // only the last segment of a GSO send may be shorter
  }
  return count;
}

bool UdpPort::flush_run() {
  const size_t cap = tx_ring_.size();
  const int fd = tx_ring_[tx_head_].fd;
  size_t messages = 0;
  size_t consumed = 0;  // ring items the messages carry
  size_t iovs = 0;
  while (messages < config_.batch && consumed < tx_count_) {
    const size_t first = (tx_head_ + consumed) & (cap - 1);
    TxItem& item = tx_ring_[first];
    if (item.fd != fd) break;
    const size_t count = config_.gso ? gso_run(first, tx_count_ - consumed) : 1;
    iovec* iov = &tx_iov_[iovs];
    size_t pieces = 0;
    for (size_t k = 0; k < count; ++k) pieces += gather((first + k) & (cap - 1), iov + pieces);
    iovs += pieces;
    msghdr& h = tx_msgs_[messages].msg_hdr;
    h = msghdr{};
    h.msg_name = &item.dst;
    h.msg_namelen = sizeof item.dst;
    h.msg_iov = iov;
    h.msg_iovlen = pieces;
    std::byte* control = tx_control_.data() + messages * kTxControlBytes;
    std::memset(control, 0, kTxControlBytes);
    h.msg_control = control;
    size_t used = 0;
    // Per-datagram DSCP/ECN (the socket default is 0), and the segment size of a GSO send.
    if (item.tos != 0) used = add_cmsg(control, used, IPPROTO_IP, IP_TOS, int{item.tos});
    if (count > 1) {
      used = add_cmsg(control, used, SOL_UDP, UDP_SEGMENT, static_cast<uint16_t>(item.length));
    }
    h.msg_controllen = used;
    if (used == 0) h.msg_control = nullptr;
    tx_msg_items_[messages] = count;
    consumed += count;
    ++messages;
  }
  const Time call_began = monotonic_now();
  const int sent = ::sendmmsg(fd, tx_msgs_.data(), static_cast<unsigned>(messages), MSG_DONTWAIT);
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
    if (tx_msg_items_[0] > 1 && (error == EINVAL || error == EIO || error == EOPNOTSUPP)) {
      // The path cannot segment (no GSO on the device, or a segment above its MTU): send
      // datagram by datagram from now on instead of losing them.
      config_.gso = false;
      last_tx_error_ =
          fmt::format("UDP GSO refused ({}): sending without it", std::strerror(error));
      return true;
    }
    const TxItem& item = tx_ring_[tx_head_];
    drop_head(fmt::format("sendmmsg to {}:{} refused a {}-byte datagram: {}",
                          inet_ntoa(item.dst.sin_addr), ntohs(item.dst.sin_port), item.length,
                          std::strerror(error)));
    return true;
  }
  ++counters_.tx_calls;
  // The kernel moves a call's datagrams one after the other, as a wire serializes them: each
  // departs when the call has spent its share of the time on the bytes before it. (Stamping
  // them all at the call's end put departures after the peer's answers on loopback; at its
  // start, a datagram's wait behind the rest of the batch counted as path delay.)
  const Time call_ended = monotonic_now();
  uint64_t call_bytes = 0;
  for (size_t m = 0, item = 0; m < static_cast<size_t>(sent); ++m) {
    for (size_t k = 0; k < tx_msg_items_[m]; ++k, ++item) {
      call_bytes += tx_ring_[(tx_head_ + item) & (cap - 1)].length;
    }
  }
  const double seconds_per_byte =
      (call_ended - call_began).seconds() / static_cast<double>(std::max<uint64_t>(call_bytes, 1));
  uint64_t bytes_before = 0;
  for (int m = 0; m < sent; ++m) {
    const size_t items = tx_msg_items_[static_cast<size_t>(m)];
    if (items > 1) ++counters_.tx_gso_sends;
    for (size_t k = 0; k < items; ++k) {
      const uint32_t length = tx_ring_[tx_head_].length;
      ++counters_.tx_datagrams;
      counters_.tx_bytes += length;
      pop_head_transmitted(
          call_began + Time::from_seconds(seconds_per_byte * static_cast<double>(bytes_before)));
      bytes_before += length;
    }
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
    rx_iov_[i] = iovec{rx_bytes_.data() + i * rx_slot_, rx_slot_};
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
    handle_buffer(socket, static_cast<size_t>(i), rx_msgs_[static_cast<size_t>(i)].msg_len);
  }
}

void UdpPort::handle_buffer(RxSocket& socket, size_t index, size_t length) {
  msghdr& h = rx_msgs_[index].msg_hdr;
  const std::byte* base = rx_bytes_.data() + index * rx_slot_;
  if ((h.msg_flags & MSG_TRUNC) != 0 || length >= rx_slot_) {
    ++counters_.rx_datagrams;
    counters_.rx_bytes += length;
    ++counters_.rx_truncated;
    return;
  }
  bool have_destination = false;
  RxMeta meta;
  meta.destination = socket.address;
  int gro_segment = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      in_pktinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof info);
      meta.destination = world::Ipv4{ntohl(info.ipi_addr.s_addr)};
      have_destination = true;
    } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
      std::memcpy(&meta.tos, CMSG_DATA(c), 1);
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      // Clamped to now: the sampled clock offset may be off by a little, and a completion
      // must never be stamped after the loop's present.
      const Time now = monotonic_now();
      meta.arrival = std::min(
          now, Time::ns(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec - realtime_offset_ns_));
      last_rx_kernel_time_ = meta.arrival;
      rx_queueing_sum_ += now - meta.arrival;
      ++rx_queueing_samples_;
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
      uint32_t overflow = 0;
      std::memcpy(&overflow, CMSG_DATA(c), sizeof overflow);
      // A cumulative count per socket (wrapping at 2^32): sum each socket's own deltas.
      counters_.rx_kernel_drops += static_cast<uint32_t>(overflow - socket.overflow_seen);
      socket.overflow_seen = overflow;
    } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
      std::memcpy(&gro_segment, CMSG_DATA(c), sizeof gro_segment);
    }
  }
  if (!have_destination) {
    ++counters_.rx_datagrams;
    ++counters_.rx_no_destination;
    return;
  }
  const sockaddr_in& from = rx_names_[index];
  meta.source = world::Ipv4{ntohl(from.sin_addr.s_addr)};
  meta.source_port = ntohs(from.sin_port);
  if (gro_segment <= 0 || length <= static_cast<size_t>(gro_segment)) {
    handle_datagram(meta, {base, length});
    return;
  }
  // GRO: datagrams of gro_segment bytes back to back, the last one possibly shorter.
  ++counters_.rx_gro_batches;
  const auto segment = static_cast<size_t>(gro_segment);
  for (size_t offset = 0; offset < length; offset += segment) {
    handle_datagram(meta, {base + offset, std::min(segment, length - offset)});
  }
}

void UdpPort::handle_datagram(const RxMeta& meta, std::span<const std::byte> datagram) {
  ++counters_.rx_datagrams;
  counters_.rx_bytes += datagram.size();
  if (datagram.size() > datagram_) {
    ++counters_.rx_truncated;
    return;
  }
  const wire::IpUdpInfo ip{.src_ip = meta.source.value,
                           .dst_ip = meta.destination.value,
                           .src_port = meta.source_port,
                           .dst_port = config_.listen_port,
                           .dscp = static_cast<uint8_t>(meta.tos >> 2),
                           .ecn = static_cast<uint8_t>(meta.tos & 3),
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
  packet->src = world::Endpoint{meta.source, meta.source_port};
  packet->dst = world::Endpoint{meta.destination, config_.listen_port};
  packet->dscp = ip.dscp;
  packet->ecn = ip.ecn;
  packet->arrival = meta.arrival;
  packet->roce = view.value.headers;
  packet->payload.length = static_cast<uint32_t>(view.value.payload.size());
  if (config_.lend_payloads) {
    packet->payload.borrowed = view.value.payload;
  } else {
    packet->payload.bytes.assign(view.value.payload.begin(), view.value.payload.end());
  }
  ++counters_.rx_delivered;
  deliver(std::move(packet));
}

}  // namespace bifrost::real
