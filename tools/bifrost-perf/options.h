#pragma once
// bifrost-perf's settings, shaped like perftest's: server and client take the same flags, the
// client adds the server's address.
#include <algorithm>
#include <cstdint>
#include <string>

#include "bifrost/transport/config.h"

namespace bifrost::perf {

enum class Op { write, send, read };

struct Options {
  std::string test;    // write_bw, send_bw, read_bw, write_lat, send_lat, read_lat, write0_lat,
                       // rpc_bw
  std::string server;  // empty: this is the server
  uint32_t size = 65536;
  bool all_sizes = false;
  uint64_t iterations = 0;  // 0: 5000 for bandwidth tests, 1000 for latency tests
  double duration = 0;      // seconds; replaces iterations when set (bandwidth tests)
  uint32_t qps = 1;
  std::string connection = "RC";
  std::string transport = "rc";
  bool report_gbits = false;
  std::string out_json;
  bool verify = false;
  uint32_t mtu = 4096;
  std::string bind;  // local address; default: the one the control connection uses
  uint16_t port = 18515;
  uint32_t tx_depth = 128;
  double timeout = 10;      // seconds without progress before giving up
  uint8_t qp_timeout = 14;  // plain RC: perftest's default (67 ms)
  // Bifröst RC's data QPs: a timeout is how Bifröst notices a failed path and moves to a backup
  // QP, so it stays short (16.8 ms; the soft NIC answers slower than a hardware one).
  uint8_t bifrost_rc_timeout = 12;
  bool busy_poll = false;
  // perftest's -e: sleep on completion events even in latency tests (which spin by default).
  bool events = false;
  bool gso = false;
  bool ecn = false;  // data packets ECN-capable (ECT(0)), so a marking bottleneck can mark them  //
                     // UDP GSO/GRO batches (bifrost-to-bifrost only; see real/udp_port.h)
  bool connection_given = false;  // -c on the command line (meaningless with Bifröst)
  // Bifröst knobs for a soft NIC over UDP sockets, whose path is slower and burstier than the
  // 100 Gb/s fabric the transport's defaults assume.
  double base_rtt_us = 50;
  // The RTO runs from posting, so it includes the time WQEs wait in the soft NIC's send
  // queue, which RTT samples (from send completions) do not see: 5 ms, not 500 us.
  double min_rto_us = 5000;
  double line_rate_gbps = 100;
  std::string cc = "swift";
  // swift's loss gate (docs/transport.md): false, every loss cuts the window (the paper's rule).
  bool loss_gate = transport::TransportConfig{}.cc.swift.params.loss_gate;
  // Chunks shrink while losses are seen so that about this fraction is sent again (0: off).
  double chunk_loss_budget = transport::TransportConfig{}.chunk_loss_budget;
  // Bifröst's starting configuration: "default" (TransportConfig{}) or "paper"
  // (TransportConfig::paper(); the flags below that are not given then take its values).
  std::string config = "default";
  bool chunking = true;            // false: a large message is one WRITE (ARDMA's way), not chunks
  uint32_t ack_every = 32;         // software ACK coalescing: WQEs per ACK (1: an ACK per WQE)
  uint32_t ack_bytes = 32 * 1024;  // ... or bytes per ACK
  double ack_timer_us = 120;       // ... at the latest after this long
  // false: the hint bit only on the last WQE the window allows (A.1.2 to the letter), so a lone
  // WQE waits for a trigger; true (the transport's default) also on the tail of every burst.
  bool hint_when_idle = true;
  // false: software ACKs in the data's traffic class, not above it (Fig. 4(b): no priority).
  bool ack_priority = true;
  // rpc_bw: requests outstanding per connection, and the response size (0: the request's).
  uint32_t depth = 8;
  uint32_t response_size = 0;
  // rpc_bw: requests above this many bytes go as a descriptor the server pulls with an RDMA
  // READ (ARDMA's large requests, Bifröst §4.2.1); 0: every request is a message.
  uint64_t read_threshold = 0;
  // RoGUE (--transport rogue-rc|rogue-uc): segment and batch bytes (0: the defaults for
  // --line_rate), a shadow QP per RC QP, pacing through the NIC's rate limiter.
  uint64_t rogue_segment = 0;
  uint64_t rogue_batch = 0;
  bool rogue_shadow = true;
  bool rogue_pace = true;
  std::string rogue_trace;  // CSV of every congestion-control event (empty: none)
  // RoGUE's modelled host CPU per signal and per NIC clock read (RogueConfig::signal_cost,
  // clock_read_cost): 0, off, as the real runtime pays its real costs.
  double rogue_signal_cost_us = 0;
  double rogue_clock_read_cost_us = 0;
  // Virtuoso (--transport virtuoso): paths per multi-path connection, one QP each from local
  // alias i to the peer's alias i; probe flows measure each path before the first MP WR.
  uint32_t paths = 1;
  bool virtuoso_probe = true;
  uint64_t probe_bytes = 512 * 1024;  // per path; the paper's "at least 512 KB"

  bool is_client() const { return !server.empty(); }
  bool is_latency() const { return test.ends_with("_lat"); }
  // Latency tests spin by default, as perftest's do; -e turns that off.
  bool spins() const { return busy_poll || (is_latency() && !events); }
  // write0_lat: one zero-byte signalled RC WRITE at a time, its whole round trip (post to
  // completion): RoGUE's RTT oracle (Table 1). The server stays passive, as for read_lat.
  bool is_write0() const { return test == "write0_lat"; }
  // Request/response through transport::RpcChannel (over a Bifröst transport only).
  bool is_rpc() const { return test.starts_with("rpc"); }
  uint32_t response_bytes(uint32_t request_bytes) const {
    return response_size != 0 ? response_size : request_bytes;
  }
  Op op() const {
    // RPCs go by the transport's own policy, as write_bw's messages.
    if (test.starts_with("write") || is_rpc()) return Op::write;
    if (test.starts_with("send")) return Op::send;
    return Op::read;
  }
  uint64_t effective_iterations() const {
    return iterations != 0 ? iterations : (is_latency() ? 1000 : 5000);
  }
  // The Bifröst transport (a message channel) instead of bare verbs.
  bool uses_bifrost() const { return transport == "bifrost-uc" || transport == "bifrost-rc"; }
  // RoGUE beneath the verbs: the tests post the same verbs as over bare QPs, RoGUE segments,
  // batches, paces and (RC) replaces failed QPs beneath them.
  bool uses_rogue() const { return transport == "rogue-rc" || transport == "rogue-uc"; }
  // Virtuoso: each -q is one multi-path connection (MP WRITE / READ / SEND over --paths QPs).
  bool uses_virtuoso() const { return transport == "virtuoso"; }
  // -a: 2 B .. 8 MiB over verbs; over Bifröst 8 B (room for the message index that --verify
  // needs) .. 4 MiB (the largest Bifröst message), send_bw at most 64 KiB (one SEND each),
  // rpc_bw 2 MiB. The largest message either side sends (an RPC response may be larger).
  // Over Virtuoso, --verify too carries the message index in the first 8 bytes.
  uint32_t min_size() const { return uses_bifrost() || uses_virtuoso() ? 8 : 2; }
  uint32_t max_size() const {
    if (is_rpc()) return std::max(all_sizes ? (1u << 21) : size, response_size);
    if (!all_sizes) return size;
    if (connection == "UD" && !uses_bifrost()) return mtu;  // one packet per UD message
    if (uses_rogue() && op() == Op::send) return 1u << 16;  // a SEND lands in one receive
    if (!uses_bifrost()) return 1u << 23;
    return op() == Op::send ? (1u << 16) : (1u << 22);
  }
};

// Throws Error for combinations that cannot run (READ on UC, UD, other transports...).
void validate(const Options& options);

}  // namespace bifrost::perf
