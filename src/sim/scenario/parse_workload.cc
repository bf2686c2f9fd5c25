#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/builtin_cdfs.h"
#include "host_sets.h"
#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 7> kKinds = {
    "poisson", "incast", "all_to_all", "permutation", "file", "closed_loop", "probe"};
constexpr std::array<std::string_view, 2> kOps = {"write", "read"};
constexpr std::array<std::string_view, 3> kFormats = {"htsim", "hpcc", "csv"};
constexpr std::array<std::string_view, 2> kTimeUnits = {"ps", "us"};
constexpr int64_t kMaxRounds = 1'000'000;

std::vector<std::string_view> keys_for(std::string_view kind) {
  std::vector<std::string_view> keys = {"kind", "name"};
  if (kind != "closed_loop" && kind != "probe") keys.push_back("op");
  // One push_back at a time: GCC 12 at -O3 flags the range insert with a false -Warray-bounds.
  auto add = [&keys](std::initializer_list<std::string_view> more) {
    for (const std::string_view key : more) keys.push_back(key);
  };
  if (kind == "poisson") {
    add({"priority", "cdf", "size", "load", "reference", "sources", "destinations", "start",
         "duration", "flows"});
  } else if (kind == "incast") {
    add({"priority", "senders", "receiver", "size", "start", "jitter", "rounds", "period"});
  } else if (kind == "all_to_all" || kind == "permutation") {
    add({"priority", "hosts", "size", "start", "jitter"});
  } else if (kind == "closed_loop") {
    add({"priority", "clients", "server", "threads", "depth", "size", "start", "duration", "warmup",
         "start_spread"});
  } else if (kind == "probe") {
    add({"priority", "src", "dst", "interval", "start", "stop"});
  } else {
    add({"format", "path", "time_unit"});
  }
  return keys;
}

Time not_negative_time(const TableReader& r, std::string_view key) {
  return r.time(key).value_or(Time::zero());
}

// A built-in distribution's name, or a CDF file relative to the scenario's folder.
void flow_sizes(const TableReader& r, const std::filesystem::path& base_dir, PoissonWorkload& w) {
  const bool has_cdf = r.has("cdf");
  if (has_cdf && r.has("size")) r.fail("size", "give either cdf or size, not both");
  if (!has_cdf) {
    const auto size = r.positive_bytes("size");
    if (!size) r.fail_table("missing required key \"cdf\" (or \"size\" for fixed-size flows)");
    w.sizes = std::make_shared<const workload::FlowSizeCdf>(workload::FlowSizeCdf::constant(*size));
    w.sizes_name = w.sizes->source();
    return;
  }
  const std::string cdf = *r.string("cdf");
  w.sizes_name = cdf;
  try {
    w.sizes = workload::resolve_cdf(cdf, base_dir);
  } catch (const Error& e) {
    r.fail("cdf", e.what());
  }
}

PoissonWorkload poisson(const TableReader& r, const Topology& topology,
                        const SimulationConfig& simulation, const std::filesystem::path& base_dir) {
  const uint64_t hosts = host_count(topology);
  PoissonWorkload w;
  flow_sizes(r, base_dir, w);
  w.load = r.required(r.number("load"), "load");
  if (w.load <= 0) {
    r.fail("load", fmt::format("{} is out of range; valid values: greater than 0", w.load));
  }
  const auto classes = link_classes(topology);
  if (auto reference = r.choice("reference", classes)) w.reference = *reference;
  w.sources = host_set(r, "sources", hosts).value_or(all_hosts(hosts));
  w.destinations = host_set(r, "destinations", hosts).value_or(all_hosts(hosts));
  // Host selections are distinct, so only a single destination can leave a source without one.
  if (w.destinations.size() == 1 &&
      std::find(w.sources.begin(), w.sources.end(), w.destinations.front()) != w.sources.end()) {
    r.fail(r.has("destinations") ? "destinations" : "sources",
           fmt::format("source {} has no destination other than itself", w.destinations.front()));
  }
  w.start = not_negative_time(r, "start");
  w.duration = r.positive_time("duration");
  if (auto flows = r.integer("flows", 1, std::numeric_limits<int64_t>::max())) {
    w.max_flows = static_cast<uint64_t>(*flows);
  }
  if (!w.duration && !w.max_flows) {
    if (!simulation.duration || *simulation.duration <= w.start) {
      r.fail_table(
          "a poisson workload needs \"duration\" or \"flows\", or a [simulation] "
          "duration after its start");
    }
    w.duration = *simulation.duration - w.start;
  }
  return w;
}

// The hosts of `key` that send to `receiver`: "all" means every host but the receiver; an
// explicit selection may not include it.
std::vector<uint32_t> senders_to(const TableReader& r, std::string_view key, uint32_t receiver,
                                 std::string_view role, uint64_t hosts) {
  std::vector<uint32_t> senders = r.required(host_set(r, key, hosts), key);
  const bool is_receiver_in = std::find(senders.begin(), senders.end(), receiver) != senders.end();
  if (r.find(key)->value<std::string>() == "all") {
    std::erase(senders, receiver);
  } else if (is_receiver_in) {
    r.fail(key,
           fmt::format("include the {}, host {}; a host cannot send to itself", role, receiver));
  }
  return senders;
}

IncastWorkload incast(const TableReader& r, uint64_t hosts) {
  IncastWorkload w;
  w.receiver = r.required(host_index(r, "receiver", hosts), "receiver");
  w.senders = senders_to(r, "senders", w.receiver, "receiver", hosts);
  w.size = r.required(r.positive_bytes("size"), "size");
  w.start = not_negative_time(r, "start");
  w.jitter = not_negative_time(r, "jitter");
  if (auto rounds = r.integer("rounds", 1, kMaxRounds)) w.rounds = static_cast<uint32_t>(*rounds);
  if (auto period = r.positive_time("period")) {
    w.period = *period;
  } else if (w.rounds > 1) {
    r.fail("rounds", fmt::format("{} rounds need a \"period\" between their starts", w.rounds));
  }
  return w;
}

// Threads and I/O depth multiply into the requests a client keeps outstanding.
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxDepth = 4096;

ClosedLoopWorkload closed_loop(const TableReader& r, uint64_t hosts,
                               const SimulationConfig& simulation) {
  ClosedLoopWorkload w;
  w.server = r.required(host_index(r, "server", hosts), "server");
  w.clients = senders_to(r, "clients", w.server, "server", hosts);
  if (auto threads = r.integer("threads", 1, kMaxThreads)) {
    w.threads = static_cast<uint32_t>(*threads);
  }
  if (auto depth = r.integer("depth", 1, kMaxDepth)) w.depth = static_cast<uint32_t>(*depth);
  w.size = r.required(r.positive_bytes("size"), "size");
  w.start = not_negative_time(r, "start");
  if (auto duration = r.positive_time("duration")) {
    w.duration = *duration;
  } else if (simulation.duration && *simulation.duration > w.start) {
    w.duration = *simulation.duration - w.start;
  } else {
    r.fail_table(
        "a closed_loop workload needs \"duration\" or a [simulation] duration after its "
        "start");
  }
  w.warmup = not_negative_time(r, "warmup");
  if (w.warmup >= w.duration) {
    r.fail("warmup", "must be shorter than duration: it is the first part of it");
  }
  w.start_spread = not_negative_time(r, "start_spread");
  if (w.start_spread >= w.duration) {
    r.fail("start_spread", "must be shorter than duration: every thread starts within it");
  }
  return w;
}

// Stops at `stop`, or at the end of the run when the [simulation] has a duration.
ProbeWorkload probe(const TableReader& r, uint64_t hosts, const SimulationConfig& simulation) {
  ProbeWorkload w;
  w.src = r.required(host_index(r, "src", hosts), "src");
  w.dst = r.required(host_index(r, "dst", hosts), "dst");
  if (w.src == w.dst)
    r.fail("dst", fmt::format("is the source, host {}; a probe needs two", w.src));
  w.interval = r.required(r.positive_time("interval"), "interval");
  w.start = not_negative_time(r, "start");
  if (auto stop = r.positive_time("stop")) {
    w.stop = *stop;
  } else if (simulation.duration) {
    w.stop = *simulation.duration;
  } else {
    r.fail_table("a probe workload needs \"stop\" or a [simulation] duration");
  }
  if (w.stop <= w.start)
    r.fail(r.has("stop") ? "stop" : "start", "the probe must start before it stops");
  return w;
}

template <typename W>
W fixed_pattern(const TableReader& r, uint64_t hosts) {
  W w;
  w.hosts = host_set(r, "hosts", hosts).value_or(all_hosts(hosts));
  if (w.hosts.size() < 2) r.fail("hosts", "selects 1 host; the pattern needs at least 2");
  w.size = r.required(r.positive_bytes("size"), "size");
  w.start = not_negative_time(r, "start");
  w.jitter = not_negative_time(r, "jitter");
  return w;
}

FileWorkload file(const TableReader& r, uint64_t hosts, const std::filesystem::path& base_dir) {
  FileWorkload w;
  const std::string format = r.required(r.choice("format", kFormats), "format");
  w.format = format == "htsim"  ? workload::FlowFileFormat::htsim
             : format == "hpcc" ? workload::FlowFileFormat::hpcc
                                : workload::FlowFileFormat::csv;
  if (auto unit = r.choice("time_unit", kTimeUnits)) {
    if (w.format != workload::FlowFileFormat::htsim) {
      r.fail("time_unit",
             "applies only to format \"htsim\" (hpcc files are in seconds, csv in "
             "picoseconds)");
    }
    if (*unit == "us") w.time_unit = workload::HtsimTimeUnit::microseconds;
  }
  w.path = base_dir / r.required(r.string("path"), "path");
  workload::FlowFileOptions options;
  options.htsim_time_unit = w.time_unit;
  options.host_count = static_cast<uint32_t>(hosts);
  try {
    w.flows = workload::load_flow_file(w.path, w.format, options);
  } catch (const Error& e) {
    r.fail("path", e.what());
  }
  return w;
}

}  // namespace

WorkloadConfig parse_workload(const TableReader& r, std::size_t index, const Topology& topology,
                              const SimulationConfig& simulation,
                              const std::filesystem::path& base_dir) {
  const std::string kind = r.required(r.choice("kind", kKinds), "kind");
  r.allow_only(keys_for(kind), fmt::format(" for kind \"{}\"", kind));
  WorkloadConfig w;
  w.name = r.string("name").value_or(fmt::format("{}{}", kind, index));
  if (w.name.empty() || !workload::is_valid_tag(w.name)) {
    r.fail("name",
           fmt::format("\"{}\" is not a valid name; use letters, digits and _-.:/", w.name));
  }
  if (auto priority = r.integer("priority", 0, workload::kPriorityClasses - 1)) {
    w.priority = static_cast<uint8_t>(*priority);
  }
  if (auto op = r.choice("op", kOps)) {
    w.op = *op == "read" ? workload::FlowOp::read : workload::FlowOp::write;
  }
  const uint64_t hosts = host_count(topology);
  if (kind == "poisson") {
    w.spec = poisson(r, topology, simulation, base_dir);
  } else if (kind == "incast") {
    w.spec = incast(r, hosts);
  } else if (kind == "all_to_all") {
    w.spec = fixed_pattern<AllToAllWorkload>(r, hosts);
  } else if (kind == "permutation") {
    w.spec = fixed_pattern<PermutationWorkload>(r, hosts);
  } else if (kind == "closed_loop") {
    w.spec = closed_loop(r, hosts, simulation);
  } else if (kind == "probe") {
    w.spec = probe(r, hosts, simulation);
  } else {
    w.spec = file(r, hosts, base_dir);
  }
  return w;
}

}  // namespace bifrost::sim::scenario::detail
