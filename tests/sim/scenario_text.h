#pragma once
// Scenario tests written as TOML text: parse it as a file would be, or run it quietly.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"

namespace bifrost::sim::testing {

inline scenario::Scenario parse(const std::string& text) {
  return scenario::parse_scenario(text, "test.toml", std::filesystem::current_path());
}

// Quiet run options that write into `dir`, emptied first.
inline RunOptions quiet_into(const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  RunOptions options;
  options.progress = nullptr;
  options.out_dir = dir;
  return options;
}

// A whole result file's text.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline RunSummary run(const std::string& text) {
  RunOptions options;
  options.progress = nullptr;
  return run_scenario(parse(text), options);
}

// A star of 9 hosts (100 Gb/s, 1 us links) around a switch with a 1 MB buffer (alpha 0.5),
// with PFC (dynamic threshold) if `pfc`, carrying `workloads`.
inline std::string star_scenario(bool pfc, const std::string& workloads) {
  std::string text = R"(
[simulation]
seed = 5
mtu = 1000
[topology]
kind = "star"
hosts = 9
host_rate = "100Gbps"
host_delay = "1us"
[switch]
buffer = "1MB"
alpha = 0.5
)" + workloads;
  if (pfc) text += "[switch.pfc]\nthreshold = \"dynamic\"\nresume_offset = \"2KB\"\n";
  return text;
}

// 8 x 500 KB from hosts 1..8 into host 0 (in class `priority`): into a 1 MB buffer, it must
// pause or drop.
inline std::string incast_workload(int priority = 0) {
  return R"(
[[workload]]
kind = "incast"
name = "incast"
priority = )" +
         std::to_string(priority) +
         R"(
senders = "1..8"
receiver = 0
size = "500KB"
start = "1us"
)";
}

// Hosts 0, 1 in DC 0 send 1.5 MB each to host 2 in DC 1 over two 100 Gb/s, 20 us links: the
// receiver's link is the bottleneck, so the queue backs up across the long links. A 2 MB switch
// buffer holds DCI's H (about 0.55 MB) but not the 1.5 MB excess of the incast. `long_haul` is
// the [switch.flow_control.<class>] text under test (the file's line 24 is its first line).
inline std::string two_dc_incast(const std::string& long_haul) {
  return R"(
[simulation]
seed = 5
mtu = 1024
duration = "20ms"
[topology]
kind = "two_dc"
leaves = 1
spines = 1
hosts_per_leaf = 2
host_rate = "100Gbps"
fabric_rate = "400Gbps"
dci_rate = "100Gbps"
dci_delay = "20us"
dci_jitter = "5ns"
dci_links = 2
[switch]
buffer = "2MB"
[switch.pfc]
threshold = "static"
xoff = "100KB"
xon = "80KB"
)" + long_haul +
         R"(
[[workload]]
kind = "incast"
senders = [0, 1]
receiver = 2
size = "1.5MB"
)";
}

// 4 hosts on a star with 100 Gb/s, 2 us host links that lose `loss` of the frames each way, soft
// RNICs with `nic` keys, and every ordered pair exchanging `size` bytes (MTU 1024).
inline std::string lossy_star_all_to_all(int seed, const std::string& loss, const std::string& nic,
                                         const std::string& size) {
  return "[simulation]\nseed = " + std::to_string(seed) + R"(
mtu = 1024
[topology]
kind = "star"
hosts = 4
host_rate = "100Gbps"
host_delay = "2us"
host_loss = )" +
         loss + R"(
[nic]
model = "rnic"
)" + nic +
         R"(
[[workload]]
kind = "all_to_all"
size = ")" +
         size + "\"\n";
}

// Hosts 1 and 2 each move 2 MB into host 0 on a 3-host star (10 Gb/s, 1 us links, MTU 2048,
// seed 3); the fields are what the tests vary, each inserted where its table is.
struct TwoToOne {
  std::string duration = "20ms";
  std::string buffer = "16MB";
  std::string topology;   // more [topology] lines
  std::string nic;        // [nic] lines
  std::string transport;  // whole tables after [nic]: [transport], [switch.ecn], ...
  std::string metrics;    // [metrics] lines; none: no [metrics] table
  std::string workload;   // more lines after the incast workload (its keys, or tables)
};

inline std::string two_to_one(const TwoToOne& s) {
  std::string text = "[simulation]\nseed = 3\nmtu = 2048\nduration = \"" + s.duration +
                     "\"\n[topology]\nkind = \"star\"\nhosts = 3\nhost_rate = \"10Gbps\"\n"
                     "host_delay = \"1us\"\n" +
                     s.topology + "[switch]\nbuffer = \"" + s.buffer + "\"\n[nic]\n" + s.nic +
                     s.transport;
  if (!s.metrics.empty()) text += "[metrics]\n" + s.metrics;
  return text +
         "[[workload]]\nkind = \"incast\"\nsenders = \"1..2\"\nreceiver = 0\nsize = \"2MB\"\n"
         "start = \"1us\"\n" +
         s.workload;
}

// The message of the Error that running `text` throws, or "no error".
inline std::string run_error(const std::string& text) {
  try {
    run(text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace bifrost::sim::testing
