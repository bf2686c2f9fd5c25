#include "bifrost/wire/demo_exchange.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/wire/codec.h"
#include "bifrost/wire/frame.h"
#include "bifrost/wire/pcap.h"

namespace bifrost::wire {
namespace {

constexpr uint32_t kMtu = 256;  // the smallest RoCE path MTU keeps the capture short
constexpr uint64_t kStartNs = 1'704'067'200ULL * 1'000'000'000;  // 2024-01-01 00:00:00 UTC
constexpr uint8_t kDscp = 26;                                    // a common RoCE class
constexpr uint8_t kEct0 = 2;
constexpr uint8_t kCe = 3;
constexpr uint32_t kQkey = 0x1234ABCD;
constexpr uint32_t kRkeyB = 0x00C0FFEE;
constexpr uint64_t kBufferB = 0x00007F3A'00001000;
constexpr uint64_t kLinkGbps = 100;
constexpr uint64_t kOneWayNs = 1'000;

struct Host {
  MacAddress mac;
  uint32_t ip;
  uint16_t next_ip_id;
};

struct Qp {
  Host* host;
  Transport transport;
  uint32_t qpn;
  uint16_t udp_port;  // each QP picks its own source port (ECMP entropy)
};

enum class Verb : uint8_t { kSend, kWrite };

// Opcode offsets within a transport's block (IBTA table 38).
enum Segment : uint8_t {
  kFirst = 0,
  kMiddle = 1,
  kLast = 2,
  kLastImm = 3,
  kOnly = 4,
  kOnlyImm = 5
};

Opcode data_opcode(Transport transport, Verb verb, Segment segment) {
  const uint8_t base = transport == Transport::kRc ? 0x00 : 0x20;
  const uint8_t verb_base = verb == Verb::kSend ? 0x00 : 0x06;
  return static_cast<Opcode>(base + verb_base + segment);
}

std::vector<std::byte> text(std::string_view tag, std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>(tag[i % tag.size()]);
  return bytes;
}

class Script {
 public:
  void step(std::string_view name) { step_ = name; }
  void wait(uint64_t ns) { now_ += ns; }
  // The next `n` packets are sent but lost before the capture point.
  void drop_next(int n) { drops_ = n; }

  void packet(const Qp& from, const Qp& to, RoceHeaders headers, std::vector<std::byte> payload) {
    headers.bth.dest_qp = to.qpn;
    headers.bth.pad_count = pad_for(payload.size());
    const std::size_t bytes = ethernet_frame_size(headers.bth.opcode, payload.size());
    const uint64_t sent_at = now_;
    now_ += bytes * 8 / kLinkGbps + 100;  // serialization plus a little host time
    const uint16_t ip_id = from.host->next_ip_id++;
    if (drops_ > 0) {
      --drops_;
      return;
    }
    DemoFrame frame;
    frame.time_ns = sent_at;
    frame.step = step_;
    frame.eth = EthernetHeader{to.host->mac, from.host->mac, kEtherTypeIpv4};
    frame.ip = IpUdpInfo{from.host->ip, to.host->ip, from.udp_port, kRoceV2UdpPort, kDscp,
                         kEct0,         64,          ip_id};
    frame.roce = headers;
    frame.payload = std::move(payload);
    frames_.push_back(std::move(frame));
  }

  // Segments one SEND or WRITE message into MTU-sized packets from `psn`; returns the next PSN.
  uint32_t message(const Qp& from, const Qp& to, Verb verb, uint32_t psn, uint32_t length,
                   std::optional<uint32_t> immediate = std::nullopt, Reth reth = {}) {
    const Transport transport = from.transport;
    const std::vector<std::byte> content = text(verb == Verb::kSend ? "send " : "write ", length);
    const uint32_t packets = length == 0 ? 1 : (length + kMtu - 1) / kMtu;
    for (uint32_t i = 0; i < packets; ++i) {
      const bool first = i == 0;
      const bool last = i + 1 == packets;
      Segment segment = kMiddle;
      if (first && last) {
        segment = immediate ? kOnlyImm : kOnly;
      } else if (first) {
        segment = kFirst;
      } else if (last) {
        segment = immediate ? kLastImm : kLast;
      }
      RoceHeaders h;
      h.bth.opcode = data_opcode(transport, verb, segment);
      h.bth.psn = psn;
      h.bth.solicited = last && immediate.has_value();
      h.bth.ack_request = last && transport == Transport::kRc;
      if (first && verb == Verb::kWrite) h.reth = reth;
      if (last && immediate) h.immediate = *immediate;
      const uint32_t offset = i * kMtu;
      const uint32_t size = std::min(kMtu, length - offset);
      packet(from, to, h, {content.begin() + offset, content.begin() + offset + size});
      psn = psn_add(psn, 1);
    }
    return psn;
  }

  void ack(const Qp& from, const Qp& to, uint32_t psn, Aeth aeth) {
    RoceHeaders h;
    h.bth.opcode = Opcode::kRcAcknowledge;
    h.bth.psn = psn;
    h.aeth = aeth;
    packet(from, to, h, {});
  }

  // An RDMA READ from `requester` of `length` bytes at `reth`; the responder answers with MTU
  // packets that reuse the request's PSNs. Returns the requester's next PSN.
  uint32_t read(const Qp& requester, const Qp& responder, uint32_t psn, Reth reth, uint32_t msn) {
    RoceHeaders request;
    request.bth.opcode = Opcode::kRcReadRequest;
    request.bth.psn = psn;
    request.bth.ack_request = true;
    request.reth = reth;
    packet(requester, responder, request, {});
    wait(2 * kOneWayNs);
    const std::vector<std::byte> content = text("read ", reth.dma_length);
    const uint32_t packets = std::max<uint32_t>(1, (reth.dma_length + kMtu - 1) / kMtu);
    for (uint32_t i = 0; i < packets; ++i) {
      const bool first = i == 0;
      const bool last = i + 1 == packets;
      RoceHeaders h;
      h.bth.opcode = first && last ? Opcode::kRcReadResponseOnly
                     : first       ? Opcode::kRcReadResponseFirst
                     : last        ? Opcode::kRcReadResponseLast
                                   : Opcode::kRcReadResponseMiddle;
      h.bth.psn = psn_add(psn, i);
      if (first || last) h.aeth = make_ack(msn);
      const uint32_t offset = i * kMtu;
      const uint32_t size = std::min(kMtu, reth.dma_length - offset);
      packet(responder, requester, h, {content.begin() + offset, content.begin() + offset + size});
    }
    return psn_add(psn, packets);
  }

  void ud_send(const Qp& from, const Qp& to, uint32_t psn, uint32_t length,
               std::optional<uint32_t> immediate) {
    RoceHeaders h;
    h.bth.opcode = immediate ? Opcode::kUdSendOnlyImm : Opcode::kUdSendOnly;
    h.bth.psn = psn;
    h.deth = Deth{kQkey, from.qpn};
    if (immediate) h.immediate = *immediate;
    packet(from, to, h, text("datagram ", length));
  }

  // Marks the last packet as having met a congested queue (ECN CE).
  void mark_last_ce() { frames_.back().ip.ecn = kCe; }

  std::vector<DemoFrame> take() { return std::move(frames_); }

 private:
  std::vector<DemoFrame> frames_;
  std::string_view step_;
  uint64_t now_ = kStartNs;
  int drops_ = 0;
};

uint32_t previous(uint32_t psn) {
  return psn_add(psn, kPsnMask);
}

}  // namespace

std::vector<DemoFrame> demo_exchange() {
  Host a{{0x02, 0x00, 0x00, 0x00, 0x00, 0x0A}, 0x0A000001, 0x0100};
  Host b{{0x02, 0x00, 0x00, 0x00, 0x00, 0x0B}, 0x0A000002, 0x0200};
  const Qp rc_a{&a, Transport::kRc, 0x000011, 0xC011};
  const Qp rc_b{&b, Transport::kRc, 0x000022, 0xC022};
  const Qp uc_a{&a, Transport::kUc, 0x000033, 0xC033};
  const Qp uc_b{&b, Transport::kUc, 0x000044, 0xC044};
  const Qp ud_a{&a, Transport::kUd, 0x000055, 0xC055};
  const Qp ud_b{&b, Transport::kUd, 0x000066, 0xC066};
  const auto reth = [](uint64_t offset, uint32_t length) {
    return Reth{kBufferB + offset, kRkeyB, length};
  };
  const uint64_t rtt = 2 * kOneWayNs;

  Script s;
  // A's RC send queue starts two PSNs before the wrap, so the first message crosses it.
  uint32_t psn = 0xFFFFFE;
  uint32_t msn = 0;  // B's count of completed RC messages

  s.step("RC SEND first/middle/last across the PSN wrap 0xFFFFFF -> 0");
  psn = s.message(rc_a, rc_b, Verb::kSend, psn, 600);
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC SEND only (13 bytes, 3 pad bytes)");
  psn = s.message(rc_a, rc_b, Verb::kSend, psn, 13);
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC SEND only with immediate");
  psn = s.message(rc_a, rc_b, Verb::kSend, psn, 32, 0xDEADBEEF);
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC SEND first + last with immediate");
  psn = s.message(rc_a, rc_b, Verb::kSend, psn, 300, 0x01020304);
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC WRITE only");
  psn = s.message(rc_a, rc_b, Verb::kWrite, psn, 100, std::nullopt, reth(0, 100));
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC WRITE first/middle/last");
  psn = s.message(rc_a, rc_b, Verb::kWrite, psn, 700, std::nullopt, reth(0x1000, 700));
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC zero-length WRITE only with immediate");
  psn = s.message(rc_a, rc_b, Verb::kWrite, psn, 0, 0xCAFE0001, reth(0, 0));
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC WRITE first + last with immediate");
  psn = s.message(rc_a, rc_b, Verb::kWrite, psn, 400, 0xCAFE0002, reth(0x2000, 400));
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC READ request, response first/middle/last");
  psn = s.read(rc_a, rc_b, psn, reth(0x1000, 600), ++msn);

  s.step("RC READ request, response only");
  psn = s.read(rc_a, rc_b, psn, reth(0x3000, 64), ++msn);

  s.step("RC SEND refused with an RNR NAK, retried after the RNR timer");
  s.message(rc_a, rc_b, Verb::kSend, psn, 48);
  s.wait(rtt);
  s.ack(rc_b, rc_a, psn, make_rnr_nak(msn, 14));
  s.wait(1'300'000);
  psn = s.message(rc_a, rc_b, Verb::kSend, psn, 48);
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC SEND first lost before the capture point: PSN sequence error NAK, go-back-N");
  const uint32_t lost = psn;
  s.drop_next(1);  // SEND first at `lost` is dropped; SEND last at lost + 1 arrives
  s.message(rc_a, rc_b, Verb::kSend, lost, 356);
  s.wait(rtt);
  s.ack(rc_b, rc_a, lost, make_nak(msn, NakCode::kPsnSequenceError));
  psn = s.message(rc_a, rc_b, Verb::kSend, lost, 356);
  s.wait(rtt);
  s.ack(rc_b, rc_a, previous(psn), make_ack(++msn));

  s.step("RC WRITE with a bad rkey: remote access error NAK");
  {
    Reth wrong = reth(0, 64);
    wrong.rkey = 0x0BADBAD0;
    psn = s.message(rc_a, rc_b, Verb::kWrite, psn, 64, std::nullopt, wrong);
    s.wait(rtt);
    s.ack(rc_b, rc_a, previous(psn), make_nak(msn, NakCode::kRemoteAccessError));
  }

  // UC has no acknowledgements; its PSNs only let the receiver notice loss.
  uint32_t uc_psn = 0x000100;
  s.step("UC SEND only, only with immediate, first/middle/last, first + last with immediate");
  uc_psn = s.message(uc_a, uc_b, Verb::kSend, uc_psn, 20);
  uc_psn = s.message(uc_a, uc_b, Verb::kSend, uc_psn, 20, 0x0000BEEF);
  uc_psn = s.message(uc_a, uc_b, Verb::kSend, uc_psn, 520);
  uc_psn = s.message(uc_a, uc_b, Verb::kSend, uc_psn, 260, 0x0000BEF0);
  s.step("UC WRITE only, only with immediate, first/middle/last, first + last with immediate");
  uc_psn = s.message(uc_a, uc_b, Verb::kWrite, uc_psn, 40, std::nullopt, reth(0x4000, 40));
  uc_psn = s.message(uc_a, uc_b, Verb::kWrite, uc_psn, 40, 0x0000F00D, reth(0x4100, 40));
  uc_psn = s.message(uc_a, uc_b, Verb::kWrite, uc_psn, 600, std::nullopt, reth(0x5000, 600));
  s.message(uc_a, uc_b, Verb::kWrite, uc_psn, 300, 0x0000F00E, reth(0x6000, 300));

  s.step("UD SEND only (DETH) and UD SEND only with immediate; one is ECN CE-marked");
  s.ud_send(ud_a, ud_b, 0x000200, 64, std::nullopt);
  s.wait(rtt);
  s.ud_send(ud_b, ud_a, 0x000300, 30, 0x00C0FFEE);
  s.mark_last_ce();

  return s.take();
}

std::vector<std::byte> encode_demo_frame(const DemoFrame& frame) {
  std::vector<std::byte> bytes(ethernet_frame_size(frame.roce.bth.opcode, frame.payload.size()));
  const auto written = encode_ethernet_frame(frame.eth, frame.ip, frame.roce, frame.payload, bytes);
  if (!written) {
    throw Error("cannot encode demo frame {} ({}): {}", opcode_name(frame.roce.bth.opcode),
                frame.step, describe(written.error));
  }
  bytes.resize(written.value);
  return bytes;
}

void write_demo_pcap(const std::string& path, const std::vector<DemoFrame>& frames) {
  PcapWriter writer(path);
  for (const DemoFrame& frame : frames) writer.write(frame.time_ns, encode_demo_frame(frame));
  writer.close();
}

}  // namespace bifrost::wire
