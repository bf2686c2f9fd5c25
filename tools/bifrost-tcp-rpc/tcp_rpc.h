#pragma once
// A kernel-TCP RPC benchmark: the "Linux TCP" and "kernel TCP" baselines of the Bifröst paper's
// Table 2 and Fig. 6, measured in the same run and on the same host as bifrost-perf rpc_bw.
// One connection, one thread per side, `depth` requests in flight; the server answers each
// request with `response_size` bytes. Requests and responses have fixed sizes, agreed in a
// header the client sends first, so the byte stream needs no other framing.
#include <cstdint>

namespace bifrost::tcp_rpc {

struct RpcShape {
  uint32_t request_size = 4096;
  uint32_t response_size = 128;
  uint32_t depth = 8;
  bool verify = false;  // fill every payload with a pattern from its index and check it
};

struct RpcTally {
  uint32_t request_size = 0;  // the sizes the run used (the server learns them from the header)
  uint32_t response_size = 0;
  uint64_t requests = 0;       // answered requests (client) or served requests (server)
  uint64_t request_bytes = 0;  // payload bytes of those requests
  double seconds = 0;          // wall time of the measured phase
  double cpu_seconds = 0;      // this process's user + system CPU over the same phase
};

// Client: sends the header, keeps `depth` requests in flight for `seconds` (or until `count`
// requests are answered when count > 0), drains the ones in flight and closes. Throws
// bifrost::Error on a short read, a closed peer or (with verify) a corrupt response.
RpcTally run_client(int fd, const RpcShape& shape, double seconds, uint64_t count);

// Server: reads the header, answers requests until the client closes, returns what it served.
// `verify` checks each request's pattern.
RpcTally run_server(int fd, bool verify);

// The payload pattern of message `index`: byte i is (index * 131 + i) mod 251, so a dropped,
// duplicated or reordered message is caught by its first bytes.
void fill_pattern(uint8_t* data, uint32_t size, uint64_t index);
bool matches_pattern(const uint8_t* data, uint32_t size, uint64_t index);

}  // namespace bifrost::tcp_rpc
