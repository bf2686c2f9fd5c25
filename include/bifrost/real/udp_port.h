#pragma once
// The real world's packet port: RoCEv2 over UDP sockets. Receives on port 4791 of each local
// address; sends from one socket per source endpoint (address, UDP source port) in use, made on
// first use, because a device owns several GIDs and each QP picks its source port.
//
// Sending: send() encodes the packet's headers and ICRC at once into a ring (the payload stays
// in the packet, which the ring keeps: each datagram goes to the kernel as headers, payload and
// pad + ICRC, so the payload is copied only by the kernel) and a deferred flush hands the ring
// to the kernel with sendmmsg, one batch per run of packets sharing a socket. transmitted() is told
// per datagram the kernel took, after the batch call returned, so the device's next send (made from
// its transmit handler) lands in the ring instead of recursing, with the time the call began as the
// departure. The IPv4 header the kernel writes has DF set and, the sockets being unconnected, IP id
// 0 (Linux's rule for DF datagrams), which is what the ICRC is computed over.
//
// Receiving: recvmmsg batches; the destination address comes from IP_PKTINFO, DSCP/ECN from
// IP_RECVTOS, kernel drops from SO_RXQ_OVFL and the kernel receive time from SO_TIMESTAMPNS.
// Datagrams that are truncated, do not parse as RoCEv2 or fail the ICRC are counted by reason
// and dropped.
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "bifrost/real/event_loop.h"
#include "bifrost/world/packet_port.h"

namespace bifrost::real {

struct UdpPortConfig {
  // Addresses to receive on (the device's GIDs); each must be configured on this host.
  std::vector<world::Ipv4> local_addresses;
  uint16_t listen_port = 4791;
  // Datagrams per sendmmsg / recvmmsg call.
  size_t batch = 32;
  // Largest datagram handled: MTU 4096 payload plus every RoCEv2 header, with room to spare.
  size_t max_datagram = 4096 + 256;
  // SO_RCVBUF / SO_SNDBUF; forced past the sysctl limits when running as root.
  int socket_buffer_bytes = 16 << 20;
  // UDP GSO on send (runs of equal-sized datagrams to one destination go as one sendmsg that
  // the kernel cuts with UDP_SEGMENT) and GRO on receive (UDP_GRO: coalesced runs are split
  // again here). Each datagram keeps its own headers and ICRC, computed with IP id 0; the kernel
  // numbers the IP ids of GSO segments upward, so only a bifrost peer (which cannot see the id
  // and assumes 0) accepts them: off by default, for bifrost-to-bifrost speed.
  bool gso = false;
  // Deliver packets whose payload borrows the receive buffer (world::Payload::borrowed) instead
  // of a copy of it. The bytes are valid only while the receive handler runs: for a handler
  // that consumes the payload at once, as rnic::Device does (it places it into memory, or
  // copies it when its receive pipeline holds the packet).
  bool lend_payloads = false;
};

struct UdpPortCounters {
  uint64_t tx_datagrams = 0;
  uint64_t tx_bytes = 0;      // UDP payload bytes
  uint64_t tx_calls = 0;      // sendmmsg calls that sent something
  uint64_t tx_gso_sends = 0;  // messages carrying more than one datagram (GSO)
  uint64_t tx_would_block = 0;
  uint64_t tx_errors = 0;  // datagrams dropped: encode failure, no socket, kernel refusal
  uint64_t rx_datagrams = 0;
  uint64_t rx_bytes = 0;
  uint64_t rx_calls = 0;
  uint64_t rx_gro_batches = 0;  // received buffers holding more than one datagram (GRO)
  uint64_t rx_delivered = 0;
  uint64_t rx_truncated = 0;  // longer than max_datagram
  uint64_t rx_malformed = 0;  // not a RoCEv2 UDP payload bifrost can decode
  uint64_t rx_bad_icrc = 0;
  uint64_t rx_no_destination = 0;  // no IP_PKTINFO (should not happen)
  uint64_t rx_kernel_drops = 0;    // dropped by the kernel: receive buffer full (SO_RXQ_OVFL)
  uint64_t rx_dropped() const {
    return rx_truncated + rx_malformed + rx_bad_icrc + rx_no_destination;
  }
};

class UdpPort final : public world::PacketPort {
 public:
  // Binds the receive sockets; throws Error naming the address when one cannot be bound.
  UdpPort(EventLoop& loop, UdpPortConfig config);
  ~UdpPort() override;
  UdpPort(const UdpPort&) = delete;
  UdpPort& operator=(const UdpPort&) = delete;

  void send(world::PacketPtr packet) override;

  const UdpPortCounters& counters() const { return counters_; }
  // The last send failure, for error messages ("" if none).
  const std::string& last_tx_error() const { return last_tx_error_; }
  // The kernel receive time of the last datagram, on the monotonic clock (Time::zero() if the
  // kernel gave none), and its mean lead over the moment the datagram was handed to the
  // device: the socket-queueing delay a NIC timestamp would not include.
  Time last_rx_kernel_time() const { return last_rx_kernel_time_; }
  Time mean_rx_queueing() const;
  // Datagrams waiting in the send ring.
  size_t tx_pending() const { return tx_count_; }

 private:
  struct TxItem {
    int fd = -1;
    sockaddr_in dst{};
    uint32_t length = 0;  // the UDP payload: headers, payload, tail
    uint8_t tos = 0;
    uint8_t head = 0;         // header bytes at the start of the item's ring bytes
    uint8_t tail = 0;         // pad and ICRC bytes at kTailOffset of them
    world::PacketPtr packet;  // owns the payload until the kernel took it
  };
  // Ring bytes per item: room for the longest header chain, then the tail.
  static constexpr size_t kItemBytes = 128;
  static constexpr size_t kTailOffset = 120;
  struct RxSocket {
    int fd = -1;
    world::Ipv4 address;
    uint32_t overflow_seen = 0;  // the kernel's cumulative SO_RXQ_OVFL count, last seen
  };

  int source_socket(const world::Endpoint& src);
  void schedule_flush();
  void flush();
  // Sends the run of ring items starting at the head that share one socket; returns false
  // when the kernel would block.
  bool flush_run();
  void drop_head(const std::string& why);
  void pop_head_transmitted(Time departure = Time::zero());
  void grow_ring();
  std::byte* item_bytes(size_t ring_index) { return tx_bytes_.data() + ring_index * kItemBytes; }
  // Points `iov` at the item's pieces; returns how many (2 or 3: no payload, no piece).
  size_t gather(size_t ring_index, iovec* iov);
  void on_writable(int fd);
  void receive(RxSocket& socket);
  // One received buffer: a datagram, or with GRO a run of them `segment` bytes apart.
  void handle_buffer(RxSocket& socket, size_t index, size_t length);
  struct RxMeta {
    world::Ipv4 source;
    uint16_t source_port = 0;
    world::Ipv4 destination;
    uint8_t tos = 0;
    Time arrival;
  };
  void handle_datagram(const RxMeta& meta, std::span<const std::byte> datagram);
  // The ring items from `first` on that may travel as one GSO message with it.
  size_t gso_run(size_t first, size_t available) const;

  EventLoop& loop_;
  UdpPortConfig config_;
  size_t datagram_;
  UdpPortCounters counters_;
  std::string last_tx_error_;
  std::vector<RxSocket> rx_sockets_;
  std::unordered_map<uint64_t, int> tx_sockets_;
  std::vector<int> blocked_fds_;  // waiting for EPOLLOUT

  // The send ring: items and their datagram bytes, capacity a power of two.
  std::vector<TxItem> tx_ring_;
  std::vector<std::byte> tx_bytes_;
  size_t tx_head_ = 0;
  size_t tx_count_ = 0;
  bool flush_scheduled_ = false;
  bool flushing_ = false;
  bool blocked_ = false;
  std::vector<mmsghdr> tx_msgs_;
  std::vector<size_t> tx_msg_items_;  // ring items each message of a sendmmsg carries
  std::vector<iovec> tx_iov_;
  std::vector<std::byte> tx_control_;
  std::vector<std::byte> scratch_payload_;
  static constexpr size_t kIovPerDatagram = 3;

  // Receive batch buffers: rx_slot_ bytes each (a datagram, or a GRO run).
  size_t rx_slot_;
  std::vector<std::byte> rx_bytes_;
  std::vector<mmsghdr> rx_msgs_;
  std::vector<iovec> rx_iov_;
  std::vector<sockaddr_in> rx_names_;
  std::vector<std::byte> rx_control_;
  int64_t realtime_offset_ns_ = 0;
  Time realtime_offset_taken_;
  Time last_rx_kernel_time_;
  Time rx_queueing_sum_;
  uint64_t rx_queueing_samples_ = 0;
};

}  // namespace bifrost::real
