// The hostile-peer system test's two processes (driven by hostile_peer.sh):
//   hostile_peer target DIR A.B.C   a server NIC (C.2) with two registered regions between guard
//                                   canaries and a good client NIC (C.1) writing into region A;
//                                   it writes DIR/info.json, transfers until DIR/done exists,
//                                   then checks memory and prints the counters as JSON.
//   hostile_peer spray DIR A.B.C    from C.3: garbage, truncated datagrams, bad ICRCs, unknown
//                                   QPNs, PSNs outside the window, a WRITE with a bad rkey and
//                                   a WRITE with region A's rkey aimed at region B; then DIR/done.
// The server must count and drop every bad packet, refuse both WRITEs (access NAK), keep
// region B and every canary untouched, and the good client's data must land intact.
#include <arpa/inet.h>
#include <fmt/core.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/real/device_settings.h"
#include "bifrost/real/event_loop.h"
#include "bifrost/real/udp_port.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/wire/codec.h"

namespace bifrost {
namespace {

constexpr uint64_t kBase = 0x100000;
constexpr uint64_t kGuard = 64 << 10;
constexpr uint64_t kRegion = 1 << 20;
constexpr uint64_t kSlot = 64 << 10;
constexpr uint64_t kSlots = kRegion / kSlot;
constexpr std::byte kCanary{0xA5};
constexpr uint32_t kHostilePsn = 500;
constexpr uint32_t kHostileQpn = 0x77;
constexpr int kRounds = 300;

world::Ipv4 addr(const std::string& prefix, int host) {
  return world::parse_ipv4(fmt::format("{}.{}", prefix, host));
}

struct Nic {
  Nic(real::EventLoop& loop, world::Ipv4 ip, const char* name) {
    port = std::make_unique<real::UdpPort>(
        loop, real::UdpPortConfig{.local_addresses = {ip}, .lend_payloads = true});
    rnic::DeviceConfig dc;
    dc.name = name;
    dc.gids = {ip};
    real::apply_real_world_settings(dc);
    device = std::make_unique<rnic::Device>(loop, dc);
    device->attach(*port);
    pd = device->alloc_pd();
    cq = &device->create_cq(4096);
  }
  ~Nic() { device.reset(); }
  rnic::QueuePair& rc_qp(world::Ipv4 peer, uint32_t peer_qpn, uint32_t psn) {
    rnic::QueuePair& qp = device->create_qp(pd, rnic::QpType::rc, *cq, *cq);
    rnic::QpConnection c;
    c.dest_ip = peer;
    c.dest_qp_num = peer_qpn;
    c.rq_psn = c.sq_psn = psn;
    c.timeout = 12;
    c.retry_cnt = 7;
    c.access = rnic::Access::remote_write;
    rnic::connect_qp(qp, c);
    return qp;
  }
  std::unique_ptr<real::UdpPort> port;
  std::unique_ptr<rnic::Device> device;
  rnic::ProtectionDomain pd;
  rnic::CompletionQueue* cq = nullptr;
};

int target(const std::string& dir, const std::string& prefix) {
  real::EventLoop loop;
  Nic server(loop, addr(prefix, 2), "target");
  Nic client(loop, addr(prefix, 1), "good-client");
  // guard | region A | guard | region B | guard
  rnic::ByteMemory memory(kBase, 3 * kGuard + 2 * kRegion);
  std::fill(memory.bytes().begin(), memory.bytes().end(), kCanary);
  const uint64_t va_a = kBase + kGuard, va_b = va_a + kRegion + kGuard;
  std::fill_n(memory.bytes().begin() + static_cast<long>(va_b - kBase), kRegion, std::byte{0});
  const auto rw = rnic::Access::local_write | rnic::Access::remote_write;
  const auto& mr_a = server.device->reg_mr(server.pd, va_a, kRegion, rw, &memory);
  const auto& mr_b = server.device->reg_mr(server.pd, va_b, kRegion, rw, &memory);
  rnic::ByteMemory source(kBase, kRegion);
  const auto& mr_src = client.device->reg_mr(client.pd, kBase, kRegion, rw, &source);

  // The good pair's QPs need each other's numbers: create both, then connect.
  rnic::QueuePair& good_client =
      client.device->create_qp(client.pd, rnic::QpType::rc, *client.cq, *client.cq);
  rnic::QueuePair& good_server = server.rc_qp(addr(prefix, 1), good_client.qp_num(), 1000);
  rnic::QpConnection c;
  c.dest_ip = addr(prefix, 2);
  c.dest_qp_num = good_server.qp_num();
  c.rq_psn = c.sq_psn = 1000;
  c.timeout = 12;
  c.retry_cnt = 7;
  rnic::connect_qp(good_client, c);
  // Two QPs connected to the hostile: it knows their PSNs, so its WRITEs reach the key check.
  rnic::QueuePair& h1 = server.rc_qp(addr(prefix, 3), kHostileQpn, kHostilePsn);
  rnic::QueuePair& h2 = server.rc_qp(addr(prefix, 3), kHostileQpn + 1, kHostilePsn);
  const nlohmann::json info = {{"good_qpn", good_server.qp_num()},
                               {"h1_qpn", h1.qp_num()},
                               {"h2_qpn", h2.qp_num()},
                               {"rkey_a", mr_a.rkey},
                               {"va_a", va_a},
                               {"rkey_b", mr_b.rkey},
                               {"va_b", va_b}};
  // Renamed into place so the sprayer never reads half a file.
  std::ofstream(dir + "/info.tmp") << info.dump();
  std::filesystem::rename(dir + "/info.tmp", dir + "/info.json");

  // The good transfer: 64 KiB WRITEs into region A's slots, 8 in flight, each slot's latest
  // content remembered, until the sprayer is done and at least 500 WRITEs completed.
  std::vector<uint32_t> last_seed(kSlots, 0);
  uint64_t posted = 0, completed = 0, failed = 0;
  bool stop = false;
  const auto post = [&] {
    while (!stop && posted - completed < 8) {
      const uint64_t slot = posted % kSlots;
      const auto seed = static_cast<uint32_t>(posted + 1);
      // Posting order is completion order on one RC QP, so the last posted seed lands last.
      rnic::fill_pattern(seed, 0, source.bytes().subspan(slot * kSlot, kSlot));
      rnic::SendWr w;
      w.wr_id = posted;
      w.opcode = rnic::WrOpcode::rdma_write;
      w.sge = rnic::Sge{kBase + slot * kSlot, kSlot, mr_src.lkey};
      w.remote_addr = va_a + slot * kSlot;
      w.rkey = mr_a.rkey;
      good_client.post_send(w);
      last_seed[slot] = seed;
      ++posted;
      // The source slot is rewritten only after its WRITE completed: 8 in flight < 16 slots.
    }
  };
  // Handlers hold one pointer (InplaceFunction's storage is small).
  const std::function<void()> on_cq = [&] {
    rnic::WorkCompletion wc[16];
    size_t n = 0;
    while ((n = client.cq->poll(16, wc)) > 0) {
      for (size_t i = 0; i < n; ++i)
        (wc[i].status == rnic::WcStatus::success ? completed : failed)++;
    }
    post();
  };
  client.cq->set_handler([h = &on_cq] { (*h)(); });
  post();
  const std::string done = dir + "/done";
  loop.run_until([&] { return failed > 0 || (completed >= 500 && std::filesystem::exists(done)); },
                 loop.now() + Time::s(60));
  stop = true;
  loop.run_until([&] { return completed + failed == posted; }, loop.now() + Time::s(10));

  bool a_ok = true;
  for (uint64_t slot = 0; slot < kSlots; ++slot) {
    std::vector<std::byte> want(kSlot);
    rnic::fill_pattern(last_seed[slot], 0, want);
    a_ok &=
        std::memcmp(want.data(), memory.bytes().data() + (va_a - kBase) + slot * kSlot, kSlot) == 0;
  }
  const auto all = [&](uint64_t va, uint64_t n, std::byte b) {
    const auto s = memory.bytes().subspan(va - kBase, n);
    return std::all_of(s.begin(), s.end(), [b](std::byte x) { return x == b; });
  };
  const bool b_ok = all(va_b, kRegion, std::byte{0});
  const bool guards_ok = all(kBase, kGuard, kCanary) && all(va_a + kRegion, kGuard, kCanary) &&
                         all(va_b + kRegion, kGuard, kCanary);
  const auto& d = server.device->data_path_counters();
  const auto& p = server.port->counters();
  fmt::print("{}\n", nlohmann::json{{"posted", posted},
                                    {"completed", completed},
                                    {"failed", failed},
                                    {"region_a_intact", a_ok},
                                    {"region_b_untouched", b_ok},
                                    {"guards_untouched", guards_ok},
                                    {"rx_bad_icrc", p.rx_bad_icrc},
                                    {"rx_malformed", p.rx_malformed},
                                    {"rx_truncated", p.rx_truncated},
                                    {"rx_kernel_drops", p.rx_kernel_drops},
                                    {"rx_no_destination", p.rx_no_destination},
                                    {"rx_datagrams", p.rx_datagrams},
                                    {"rx_no_qp", d.rx_no_qp},
                                    {"rx_dropped_sequence", d.rx_dropped_sequence},
                                    {"rx_duplicates", d.rx_duplicates},
                                    {"access_naks_sent", d.access_naks_sent}}
                         .dump());
  return 0;
}

int spray(const std::string& dir, const std::string& prefix) {
  const std::string info_path = dir + "/info.json";
  for (int i = 0; i < 100 && !std::filesystem::exists(info_path); ++i) usleep(50'000);
  nlohmann::json info;
  std::ifstream(info_path) >> info;
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  // DF without a connected socket: IP id 0, what the target's ICRC check assumes.
  const int pmtu = IP_PMTUDISC_DO;
  setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
  sockaddr_in self{};
  self.sin_family = AF_INET;
  self.sin_addr.s_addr = htonl(addr(prefix, 3).value);
  if (bind(fd, reinterpret_cast<sockaddr*>(&self), sizeof self) != 0) throw Error("bind failed");
  socklen_t len = sizeof self;
  getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(4791);
  to.sin_addr.s_addr = htonl(addr(prefix, 2).value);
  const wire::IpUdpInfo ip{.src_ip = addr(prefix, 3).value,
                           .dst_ip = addr(prefix, 2).value,
                           .src_port = ntohs(self.sin_port),
                           .ip_id = 0};
  std::vector<std::byte> payload(64, std::byte{0x66});
  std::vector<std::byte> buf(8192);
  const auto encode = [&](uint32_t qpn, uint32_t psn, uint32_t rkey, uint64_t va) {
    wire::RoceHeaders h;
    h.bth.opcode = wire::Opcode::kRcWriteOnly;
    h.bth.dest_qp = qpn;
    h.bth.psn = psn;
    h.reth = wire::Reth{.virtual_address = va, .rkey = rkey, .dma_length = 64};
    const auto n = wire::encode_udp_payload(ip, h, payload, buf);
    if (!n) throw Error("encode failed");
    return std::vector<std::byte>(buf.begin(), buf.begin() + static_cast<long>(n.value));
  };
  const auto send = [&](const std::vector<std::byte>& d) {
    sendto(fd, d.data(), d.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  };
  const auto good_qpn = info["good_qpn"].get<uint32_t>();
  const auto va_a = info["va_a"].get<uint64_t>(), va_b = info["va_b"].get<uint64_t>();
  const auto rkey_a = info["rkey_a"].get<uint32_t>();
  std::mt19937 rng(7);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::byte> garbage(100);
    for (auto& b : garbage) b = static_cast<std::byte>(rng());
    send(garbage);
    // Each valid-looking WRITE below targets region A, where a slip would corrupt good data.
    std::vector<std::byte> w = encode(good_qpn, 1000 + (1u << 23), rkey_a, va_a);
    send(std::vector<std::byte>(w.begin(), w.begin() + 20));  // truncated
    w.back() ^= std::byte{1};
    send(w);                                                               // bad ICRC
    send(encode(0xABCDE, 1000, rkey_a, va_a));                             // no such QP
    send(encode(good_qpn, (1000 + (1u << 23)) & 0xFFFFFF, rkey_a, va_a));  // PSN far outside
    usleep(1000);
  }
  send(encode(info["h1_qpn"].get<uint32_t>(), kHostilePsn, rkey_a ^ 0x5A5A5A5A, va_a));
  send(encode(info["h2_qpn"].get<uint32_t>(), kHostilePsn, rkey_a, va_b));  // A's key, B's VA
  usleep(100'000);
  std::ofstream(dir + "/done") << "done\n";
  return 0;
}

}  // namespace
}  // namespace bifrost

int main(int argc, char** argv) {
  try {
    if (argc != 4) throw bifrost::Error("usage: hostile_peer target|spray DIR A.B.C");
    const std::string mode = argv[1];
    if (mode == "target") return bifrost::target(argv[2], argv[3]);
    if (mode == "spray") return bifrost::spray(argv[2], argv[3]);
    throw bifrost::Error("unknown mode {}", mode);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hostile_peer: {}\n", e.what());
    return 1;
  }
}
