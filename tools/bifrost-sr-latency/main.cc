// bifrost-sr-latency: the SR latency model (rnic/recovery/sr_latency.h) as three CSV tables,
// the FaSR paper's Fig. 9(a) (latency per SR action and engine), its FaSR expectation (Fig.
// 9(c)'s median and section V-D2's 5.5 to 7 ns and 181 Mpps, per fast-path share) and Fig. 2
// (throughput under a software SR query per loss, per line rate and loss rate).
//
//   bifrost-sr-latency --out-dir experiments/fasr-sr-latency
//
// Every number comes from the library; this tool only sweeps and prints.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/sr_latency.h"
#include "bifrost/wire/frame.h"

namespace {

using namespace bifrost;
using namespace bifrost::rnic::recovery;

std::ofstream open_csv(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  std::ofstream out(path);
  if (!out) throw Error("cannot write {}: check that the folder exists and is writable", path);
  return out;
}

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

void write_actions(std::ofstream& out, const SrLatencyConfig& c) {
  out << "engine,action,path,latency_ns\n";
  const std::pair<SrAction, const char*> actions[] = {
      {SrAction::record_out_of_order, "record_out_of_order"},
      {SrAction::return_sack, "return_sack"},
      {SrAction::update_rcv_nxt, "update_rcv_nxt"},
      {SrAction::find_retransmit_psn, "find_retransmit_psn"}};
  for (EngineKind e : {EngineKind::irn, EngineKind::srnic, EngineKind::fasr}) {
    for (const auto& [action, name] : actions) {
      for (SrPath path : {SrPath::fast, SrPath::slow}) {
        // Only FaSR has two paths; print one row for the others.
        if (e != EngineKind::fasr && path == SrPath::slow) continue;
        out << fmt::format("{},{},{},{:g}\n", to_string(e), name,
                           e != EngineKind::fasr  ? "-"
                           : path == SrPath::fast ? "fast"
                                                  : "slow",
                           ns(sr_action_latency(c, e, action, path)));
      }
    }
  }
}

void write_expectation(std::ofstream& out, const SrLatencyConfig& c, uint32_t frame) {
  out << "fast_fraction,expected_ns,median_ns,pipeline_mpps,pipeline_gbps_at_frame\n";
  for (int k = 0; k <= 100; k += 5) {
    const double f = k / 100.0;
    const Time e = fasr_expected_latency(c, f);
    out << fmt::format("{:.2f},{:.3f},{:g},{:.1f},{:.0f}\n", f, ns(e),
                       ns(fasr_median_latency(c, f)), sr_pipeline_mpps(e),
                       sr_pipeline_line_rate(e, frame).gbps());
  }
}

void write_stalls(std::ofstream& out, uint32_t frame, const std::vector<double>& losses) {
  out << "query_ns,queries_per_loss,line_gbps,loss,throughput_fraction\n";
  // Fig. 2: one 1.4 us software query per loss. Two queries per loss are SRNIC's two waits (a
  // receiver RCV-NXT update and a sender retransmit lookup), at section V-A's 1.2 us of PCIe
  // and at section II's measured 1.4 us.
  const std::pair<Time, double> queries[] = {
      {Time::ns(1400), 1}, {Time::ns(1200), 2}, {Time::ns(1400), 2}};
  for (const auto& [query, per_loss] : queries) {
    for (int64_t gbps : {25, 50, 100, 200, 400, 800}) {
      for (double loss : losses) {
        out << fmt::format(
            "{:g},{:g},{},{:g},{:.4f}\n", ns(query), per_loss, gbps, loss,
            throughput_under_query_stalls(Rate::Gbps(gbps), loss, query, frame, per_loss));
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"SR latency model of the FaSR paper's Figs. 9(a), 9(c) and 2"};
  std::string out_dir = ".";
  uint32_t mtu = 1024;
  std::vector<double> losses{0.0001, 0.001, 0.005, 0.01, 0.02};
  app.add_option("--out-dir", out_dir, "folder for actions.csv, expectation.csv, stalls.csv")
      ->capture_default_str();
  app.add_option("--mtu", mtu, "payload per packet; frames add the RoCEv2 headers")
      ->capture_default_str();
  app.add_option("--losses", losses, "loss rates for the stall table")->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  try {
    const SrLatencyConfig config;
    const auto frame =
        static_cast<uint32_t>(wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, mtu));
    auto actions = open_csv(out_dir, "actions.csv");
    write_actions(actions, config);
    auto expectation = open_csv(out_dir, "expectation.csv");
    write_expectation(expectation, config, frame);
    auto stalls = open_csv(out_dir, "stalls.csv");
    write_stalls(stalls, frame, losses);
    fmt::print("frame {} B; wrote actions.csv, expectation.csv, stalls.csv in {}\n", frame,
               out_dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bifrost-sr-latency: {}\n", e.what());
    return 1;
  }
  return 0;
}
