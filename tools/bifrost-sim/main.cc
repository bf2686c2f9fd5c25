// bifrost-sim: runs packet-level simulation scenarios and plots their results.
//
//   bifrost-sim run scenario.toml --out DIR     simulate, write CSV + JSON results into DIR
//   bifrost-sim check scenario.toml             parse and describe a scenario, run nothing
//   bifrost-sim plot DIR                        draw the PNG plots of a finished run
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/flows.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"
#include "bifrost/sim/topology/graph.h"

namespace {

int plot(const std::string& dir) {
  const std::string command = fmt::format("/usr/bin/python3 '{}' '{}'", BIFROST_PLOT_SCRIPT, dir);
  const int status = std::system(command.c_str());
  if (status != 0) {
    fmt::print(stderr,
               "bifrost-sim: plotting failed (is python3-matplotlib installed? "
               "scripts/setup.sh installs it)\n");
    return 1;
  }
  return 0;
}

void print_summary(const bifrost::sim::RunSummary& s, const std::string& out) {
  const double wall = s.wall_seconds > 0 ? s.wall_seconds : 1e-9;
  fmt::print(
      "simulated {:.3f} ms in {:.2f} s wall: {} data packets, {} packet-hops "
      "({:.2f} M hops/s), {} events ({:.2f} M/s)\n",
      s.simulated.seconds() * 1e3, s.wall_seconds, s.packets, s.data_packets,
      static_cast<double>(s.data_packets) / wall / 1e6, s.events,
      static_cast<double>(s.events) / wall / 1e6);
  fmt::print(
      "flows finished {}/{}, drops {}, pause episodes {}, NIC retransmissions {}, "
      "timeouts {}\n",
      s.finished, s.flows, s.drops, s.pauses, s.retransmitted, s.timeouts);
  if (s.transport.connections > 0) {
    fmt::print(
        "Bifröst: {} connections, {} messages, {} chunks, {} WQEs retransmitted, {} losses "
        "detected, {} timeouts, {} tail probes, {} failovers, {} duplicates suppressed\n",
        s.transport.connections, s.transport.messages, s.transport.chunks,
        s.transport.retransmitted_wqes, s.transport.losses_detected, s.transport.timeouts,
        s.transport.tail_probes, s.transport.failovers, s.transport.duplicates);
    fmt::print(
        "Bifröst verdicts refuted by a late ACK: {} spurious timeouts, {} failovers of live "
        "paths\n",
        s.transport.spurious_timeouts, s.transport.failovers_refuted);
    if (s.transport.receive_wait_max > bifrost::Time::zero()) {
      fmt::print(
          "host completion cost: {} receive completions waited {:.2f} us on average, {:.2f} us at "
          "most\n",
          s.transport.receive_completions,
          s.transport.receive_wait_total.microseconds() /
              static_cast<double>(s.transport.receive_completions),
          s.transport.receive_wait_max.microseconds());
    }
  }
  for (const auto& l : s.closed_loops) {
    fmt::print(
        "closed loop {}: {} outstanding ({} clients x {} threads x depth {}), {} requests done, "
        "{} failed, goodput {:.2f} Gb/s, {} drops in its window\n",
        l.name, l.spec.loop.clients.size() * l.spec.loop.threads * l.spec.loop.depth,
        l.spec.loop.clients.size(), l.spec.loop.threads, l.spec.loop.depth, l.result.completed,
        l.result.failed, l.result.goodput_gbps, l.window_drops);
  }
  // FCT slowdown (FCT over the FCT alone on an empty network) by flow size.
  const auto& flows = s.metrics.flows;
  fmt::print("{:<16} {:>8} {:>8}", "slowdown by size", "flows", "mean");
  for (double p : flows.percentiles()) fmt::print(" {:>8}", fmt::format("p{}", p));
  fmt::print("\n");
  for (const auto& b : flows.by_size()) {
    if (!b.mean) continue;
    fmt::print("{:<16} {:>8} {:>8.2f}", b.label, b.flows, *b.mean);
    for (double v : b.percentiles) fmt::print(" {:>8.2f}", v);
    fmt::print("\n");
  }
  if (!out.empty()) fmt::print("results in {}/\n", out);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bifrost-sim: packet-level simulation of RoCEv2 networks"};
  app.require_subcommand(1);

  std::string scenario_file;
  std::string out_dir;
  bool quiet = false;
  bool with_plot = false;
  auto* run = app.add_subcommand("run", "simulate a scenario and write its results");
  run->add_option("scenario", scenario_file, "scenario TOML file")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("--out,-o", out_dir, "folder for the results")->required();
  run->add_flag("--quiet,-q", quiet, "no progress lines");
  run->add_flag("--plot", with_plot, "draw the plots into the results folder afterwards");

  auto* check = app.add_subcommand("check", "parse a scenario and describe it");
  check->add_option("scenario", scenario_file, "scenario TOML file")
      ->required()
      ->check(CLI::ExistingFile);

  std::string plot_dir;
  auto* plot_cmd = app.add_subcommand("plot", "draw the plots of a finished run");
  plot_cmd->add_option("dir", plot_dir, "results folder of bifrost-sim run")
      ->required()
      ->check(CLI::ExistingDirectory);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*plot_cmd) return plot(plot_dir);
    const auto scenario = bifrost::sim::scenario::load_scenario(scenario_file);
    if (*check) {
      const auto graph = bifrost::sim::topology::describe(scenario.topology);
      const auto flows = bifrost::sim::scenario::build_flows(scenario);
      fmt::print("{}: {} topology, {} hosts, {} switches, {} links, {} workloads, {} flows\n",
                 scenario.source, bifrost::sim::scenario::kind_name(scenario.topology), graph.hosts,
                 graph.nodes.size() - graph.hosts, graph.edges.size(), scenario.workloads.size(),
                 flows.size());
      return 0;
    }
    bifrost::sim::RunOptions options;
    options.out_dir = out_dir;
    options.progress = quiet ? nullptr : stderr;
    const auto summary = bifrost::sim::run_scenario(scenario, options);
    print_summary(summary, out_dir);
    if (with_plot) return plot(out_dir);
    return 0;
  } catch (const bifrost::Error& e) {
    fmt::print(stderr, "bifrost-sim: {}\n", e.what());
    return 2;
  }
}
