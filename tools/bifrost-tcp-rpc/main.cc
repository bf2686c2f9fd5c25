// bifrost-tcp-rpc: the kernel-TCP RPC baseline of the Bifröst paper's Table 2 and Fig. 6,
// with bifrost-perf rpc_bw's shape (one connection, one thread, `--depth` requests in flight,
// fixed request and response sizes), so experiments/bifrost-single-core can put it beside the
// RDMA stacks measured in the same run.
//
//   bifrost-tcp-rpc -B 127.0.0.2 -p 18515 --out_json server.json          # server
//   bifrost-tcp-rpc 127.0.0.2 -p 18515 -s 65536 -D 3 --out_json client.json
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/core/time.h"
#include "bifrost/real/control_channel.h"
#include "tcp_rpc.h"

namespace {

using namespace bifrost;

nlohmann::json report(const char* role, const tcp_rpc::RpcTally& t) {
  const double gb = static_cast<double>(t.request_bytes) / 1e9;
  return {{"role", role},
          {"request_size", t.request_size},
          {"response_size", t.response_size},
          {"requests", t.requests},
          {"seconds", t.seconds},
          {"requests_per_s", t.seconds > 0 ? static_cast<double>(t.requests) / t.seconds : 0.0},
          {"gbps", t.seconds > 0 ? gb * 8 / t.seconds : 0.0},
          {"cpu_s", t.cpu_seconds},
          {"cpu_core_fraction", t.seconds > 0 ? t.cpu_seconds / t.seconds : 0.0},
          {"cpu_s_per_GB", gb > 0 ? t.cpu_seconds / gb : 0.0}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Kernel-TCP RPC benchmark (the TCP baseline of the Bifröst paper's Fig. 6)"};
  std::string host, bind_ip = "0.0.0.0", out_json;
  uint16_t port = 18515;
  tcp_rpc::RpcShape shape;
  double seconds = 3, timeout = 10;
  uint64_t count = 0;
  app.add_option("host", host, "server to connect to (omit to be the server)");
  app.add_option("-p,--port", port, "TCP port")->capture_default_str();
  app.add_option("-B,--bind", bind_ip, "server: address to listen on")->capture_default_str();
  app.add_option("-s,--size", shape.request_size, "request bytes")
      ->check(CLI::Range(1u, 1u << 30))
      ->capture_default_str();
  app.add_option("--response_size", shape.response_size, "response bytes")
      ->check(CLI::Range(0u, 1u << 30))
      ->capture_default_str();
  app.add_option("--depth", shape.depth, "requests in flight")
      ->check(CLI::Range(1u, 4096u))
      ->capture_default_str();
  app.add_option("-D,--duration", seconds, "client: seconds to run")->capture_default_str();
  app.add_option("-n,--count", count, "client: requests to run instead of a duration");
  app.add_option("--timeout", timeout, "seconds to wait for the peer to connect")
      ->capture_default_str();
  app.add_flag("--verify", shape.verify, "check every request's and response's bytes");
  app.add_option("--out_json", out_json, "write the result as JSON here");
  CLI11_PARSE(app, argc, argv);
  try {
    const Time wait = Time::from_seconds(timeout);
    nlohmann::json j;
    if (host.empty()) {
      auto channel = real::ControlChannel::accept(bind_ip, port, wait);
      const tcp_rpc::RpcTally t = tcp_rpc::run_server(channel.fd(), shape.verify);
      j = report("server", t);
    } else {
      auto channel = real::ControlChannel::connect(host, port, wait);
      const tcp_rpc::RpcTally t = tcp_rpc::run_client(channel.fd(), shape, seconds, count);
      j = report("client", t);
      j["depth"] = shape.depth;  // the server never learns it
    }
    fmt::print("{}\n", j.dump());
    if (!out_json.empty()) {
      std::ofstream out(out_json);
      if (!out) throw Error("cannot write {}", out_json);
      out << j.dump(2) << "\n";
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
