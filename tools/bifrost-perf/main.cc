// bifrost-perf: perftest for the bifrost soft RNIC over real UDP. Server and client take the
// same flags; the client adds the server's address:
//   bifrost-perf write_bw --bind 10.0.0.2              (server)
//   bifrost-perf write_bw 10.0.0.2 --verify            (client)
#include <fmt/core.h>
#include <sys/resource.h>
#include <CLI/CLI.hpp>

#include <csignal>

#include "bifrost/core/error.h"
#include "report.h"
#include "runs.h"
#include "session.h"

namespace bifrost::perf {

void validate(const Options& o) {
  const bool known = o.test == "write_bw" || o.test == "send_bw" || o.test == "read_bw" ||
                     o.test == "write_lat" || o.test == "send_lat";
  if (!known) {
    throw Error("unknown test '{}': use write_bw, send_bw, read_bw, write_lat or send_lat", o.test);
  }
  if (o.transport == "bifrost-uc" || o.transport == "bifrost-rc") {
    throw Error(
        "--transport {} is not available in this build yet: the Bifröst transports are "
        "still being written; use --transport rc (the NIC's own RC/UC)",
        o.transport);
  }
  if (o.transport != "rc") {
    throw Error("unknown --transport '{}': use rc (bifrost-uc and bifrost-rc are coming)",
                o.transport);
  }
  if (o.connection == "UD") {
    throw Error("-c UD is not supported by bifrost-perf yet: use RC or UC");
  }
  if (o.connection != "RC" && o.connection != "UC") {
    throw Error("unknown connection type '{}': use RC or UC", o.connection);
  }
  if (o.connection == "UC" && o.op() == Op::read) {
    throw Error("{} needs RC: UC has no RDMA READ", o.test);
  }
  if (o.mtu < 256 || o.mtu > 4096 || (o.mtu & (o.mtu - 1)) != 0) {
    throw Error("--mtu {} is invalid: use 256, 512, 1024, 2048 or 4096", o.mtu);
  }
  if (o.size == 0 || o.size > (1u << 30)) throw Error("-s {} is invalid: use 1..2^30", o.size);
  if (o.qps == 0 || o.qps > 1024) throw Error("-q {} is invalid: use 1..1024", o.qps);
  if (o.is_latency() && o.qps != 1) throw Error("latency tests use one QP: drop -q");
  if (o.is_latency() && o.duration > 0) throw Error("latency tests count iterations: use -n");
  if (o.tx_depth == 0) throw Error("-t must be at least 1");
  if (o.timeout <= 0) throw Error("--timeout must be positive");
}

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::vector<uint32_t> sizes_of(const Options& o) {
  if (!o.all_sizes) return {o.size};
  std::vector<uint32_t> sizes;
  for (uint32_t s = 2; s <= o.max_size(); s *= 2) sizes.push_back(s);
  return sizes;
}

int run(const Options& o) {
  validate(o);
  if (o.is_client()) {
    fmt::print(stderr, "bifrost-perf: connecting to {}:{}\n", o.server, o.port);
  } else {
    fmt::print(stderr, "bifrost-perf: waiting for a client on {}:{}\n",
               o.bind.empty() ? "0.0.0.0" : o.bind, o.port);
  }
  Session session(o);
  print_banner(session);
  print_table_header(o);
  RunResults results;
  if (o.is_client()) {
    try {
      for (const uint32_t size : sizes_of(o)) {
        results.sizes.push_back(run_client_size(session, size, results));
        print_row(o, results.sizes.back());
      }
      session.channel().send({{"phase", "bye"}});
    } catch (const Error& e) {
      session.channel().send_error(e.what());
      throw;
    }
  } else {
    try {
      results = run_server(session);
    } catch (const Error& e) {
      session.channel().send_error(e.what());
      throw Error("{} (the client went away or failed mid-transfer)", e.what());
    }
    for (const SizeResult& r : results.sizes) print_row(o, r);
  }
  results.local_counters = local_counters(session);
  results.cpu_seconds = cpu_seconds();
  print_footer(o, results);
  if (!o.out_json.empty()) write_json(o.out_json, o, results);
  if (results.corrupt > 0) {
    fmt::print(stderr, "bifrost-perf: {} corrupt messages\n", results.corrupt);
    return 3;
  }
  return 0;
}

}  // namespace
}  // namespace bifrost::perf

int main(int argc, char** argv) {
  using bifrost::perf::Options;
  std::signal(SIGPIPE, SIG_IGN);
  Options o;
  CLI::App app{"bifrost-perf: perftest-style RDMA benchmarks over the bifrost soft RNIC"};
  app.add_option("test", o.test, "write_bw | send_bw | read_bw | write_lat | send_lat")->required();
  app.add_option("server", o.server, "server address (client only); omit to be the server");
  app.add_option("-s,--size", o.size, "message size in bytes")->capture_default_str();
  app.add_flag("-a,--all", o.all_sizes, "run sizes 2 B .. 8 MiB");
  app.add_option("-n,--iters", o.iterations, "messages per QP (5000 bw, 1000 lat)");
  app.add_option("-D,--duration", o.duration, "run for this many seconds (bandwidth tests)");
  app.add_option("-q,--qp", o.qps, "number of QPs")->capture_default_str();
  app.add_option("-c,--connection", o.connection, "RC | UC")->capture_default_str();
  app.add_option("--transport", o.transport, "rc | bifrost-uc | bifrost-rc")->capture_default_str();
  app.add_flag("--report_gbits", o.report_gbits, "report bandwidth in Gb/s");
  app.add_option("--out_json", o.out_json, "write results as JSON to this file");
  app.add_flag("--verify", o.verify, "check the content of every message end to end");
  app.add_option("-m,--mtu", o.mtu, "path MTU in bytes")->capture_default_str();
  app.add_option("-B,--bind", o.bind,
                 "local address (RoCE GID and bootstrap); default: the control connection's");
  app.add_option("-p,--port", o.port, "TCP port of the bootstrap")->capture_default_str();
  app.add_option("-t,--tx-depth", o.tx_depth, "messages in flight per QP")->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds without progress before giving up")
      ->capture_default_str();
  app.add_option("--qp_timeout", o.qp_timeout, "RC ACK timeout exponent (4.096 us * 2^x)")
      ->capture_default_str();
  app.add_flag("--busy_poll", o.busy_poll, "spin instead of sleeping (always on for _lat)");
  CLI11_PARSE(app, argc, argv);
  try {
    return bifrost::perf::run(o);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bifrost-perf: error: {}\n", e.what());
    return 1;
  }
}
