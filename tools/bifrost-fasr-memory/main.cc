// bifrost-fasr-memory: the NIC memory each loss-recovery engine needs for N QPs (the FaSR
// paper's Fig. 8(b), with its section V-A accounting).
//
//   bifrost-fasr-memory --qps 1,16,145,146,5000 --bdp-packets 74 --csv out.csv
//
// Nothing here knows an engine's sizes: each engine is built with make_engine and asked for its
// two counts (bytes per QP beyond the base context, bytes held once per NIC):
//   paper        footprint(): the FaSR paper's section V-A accounting, the headline;
//   implemented  implemented_footprint(): what each engine here keeps on the NIC, both halves
//                of a QP (the sender's state too), the like-for-like sensitivity count.
// For N QPs:
//
//   SR overhead  = N x per_qp_bytes + shared_bytes           (what Fig. 8(b) plots)
//   total memory = N x (256 + per_qp_bytes) + shared_bytes   (with the 256 B base QP context)
//
// The crossover with another engine is the first N from which FaSR's SR overhead is below that
// engine's, at N and at every larger N. Both sides are linear in N, so it is found in closed
// form over every integer N, not only the swept ones; the base context is the same for every
// engine, so the totals cross at the same N.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/fasr_pool.h"

namespace {

using namespace bifrost;
using rnic::recovery::EngineKind;
using rnic::recovery::kBaseContextBytes;
using rnic::recovery::MemoryFootprint;

// A QPN is 24 bits: no NIC names more QPs than this.
constexpr uint64_t kMaxQps = uint64_t{1} << 24;

constexpr EngineKind kEngines[] = {EngineKind::gbn, EngineKind::irn, EngineKind::srnic,
                                   EngineKind::fasr};

// Accepts a whole number in [min, max] written in decimal digits (CLI11 alone would take "-1"
// for an unsigned option and wrap it around).
CLI::Validator whole(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.size() <= 19 &&
            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits) {
          const uint64_t value = std::stoull(text);
          if (value >= min && value <= max) return {};
        }
        return fmt::format("'{}' is not a whole number in {}..{}", text, min, max);
      },
      fmt::format("UINT in {}..{}", min, max));
}

std::vector<uint64_t> default_qps() {
  std::vector<uint64_t> qps;
  for (uint64_t n = 1; n <= 16384; n *= 2) qps.push_back(n);
  // Around the paper's "about 145 QPs", and its abstract's "more than 5K connections".
  for (uint64_t n : {145, 146, 5000}) qps.push_back(n);
  std::sort(qps.begin(), qps.end());
  return qps;
}

struct Options {
  std::vector<uint64_t> qps = default_qps();
  uint32_t bdp_packets = 74;
  rnic::recovery::FasrPoolConfig pool{};
  std::string csv_file;
};

enum class Accounting { paper, implemented };
constexpr Accounting kAccountings[] = {Accounting::paper, Accounting::implemented};

const char* name(Accounting a) {
  return a == Accounting::paper ? "paper" : "implemented";
}

struct EngineMemory {
  Accounting accounting = Accounting::paper;
  EngineKind kind = EngineKind::gbn;
  MemoryFootprint footprint;
  // Only for the engines other than FaSR: the first N from which FaSR needs less.
  std::optional<uint64_t> fasr_below_from;
};

uint64_t sr_overhead(const MemoryFootprint& f, uint64_t qps) {
  return qps * f.per_qp_bytes + f.shared_bytes;
}

uint64_t total(const MemoryFootprint& f, uint64_t qps) {
  return qps * (kBaseContextBytes + f.per_qp_bytes) + f.shared_bytes;
}

// The smallest N >= 1 such that fasr's SR overhead is below other's at every N' >= N, if any.
// fasr(N) - other(N) = N (a_f - a_o) + (s_f - s_o) is linear: it stays negative only if FaSR's
// per-QP bytes are smaller (or equal, with a smaller shared part).
std::optional<uint64_t> fasr_below_from(const MemoryFootprint& fasr, const MemoryFootprint& other) {
  if (fasr.per_qp_bytes > other.per_qp_bytes) return std::nullopt;
  if (fasr.shared_bytes < other.shared_bytes) return 1;
  if (fasr.per_qp_bytes == other.per_qp_bytes) return std::nullopt;
  // N (a_o - a_f) > s_f - s_o >= 0.
  const uint64_t slope = other.per_qp_bytes - fasr.per_qp_bytes;
  return (fasr.shared_bytes - other.shared_bytes) / slope + 1;
}

std::string crossover_text(const std::optional<uint64_t>& n) {
  return n ? fmt::format("{}", *n) : std::string("never");
}

void check(Options& o) {
  if (o.qps.empty()) throw Error("--qps needs at least one QP count");
  for (uint64_t n : o.qps) {  // whole() checked the text; this guards the arithmetic
    if (n == 0 || n > kMaxQps) throw Error("--qps {} is outside 1..{}", n, kMaxQps);
  }
  std::sort(o.qps.begin(), o.qps.end());
  o.qps.erase(std::unique(o.qps.begin(), o.qps.end()), o.qps.end());
}

std::vector<EngineMemory> build(const Options& o, Accounting accounting) {
  std::vector<EngineMemory> engines;
  for (EngineKind kind : kEngines) {
    rnic::recovery::RecoveryConfig c;
    c.kind = kind;
    c.bdp_packets = o.bdp_packets;
    c.fasr_pool = o.pool;
    const auto engine = rnic::recovery::make_engine(c);
    const MemoryFootprint f =
        accounting == Accounting::paper ? engine->footprint() : engine->implemented_footprint();
    engines.push_back({accounting, kind, f, std::nullopt});
  }
  const MemoryFootprint fasr = engines.back().footprint;
  for (EngineMemory& e : engines) {
    if (e.kind != EngineKind::fasr) e.fasr_below_from = fasr_below_from(fasr, e.footprint);
  }
  return engines;
}

void print_table(const char* title, const Options& o, const std::vector<EngineMemory>& engines,
                 uint64_t (*bytes)(const MemoryFootprint&, uint64_t)) {
  fmt::print("\n{}\n{:>8}", title, "QPs");
  for (const EngineMemory& e : engines) fmt::print(" {:>12}", rnic::recovery::to_string(e.kind));
  fmt::print("\n");
  for (uint64_t n : o.qps) {
    fmt::print("{:>8}", n);
    for (const EngineMemory& e : engines) fmt::print(" {:>12}", bytes(e.footprint, n));
    fmt::print("\n");
  }
}

void print_report(const Options& o, Accounting accounting,
                  const std::vector<EngineMemory>& engines) {
  fmt::print("\n== {} accounting ({})\n", name(accounting),
             accounting == Accounting::paper
                 ? "footprint(): the FaSR paper's section V-A figures"
                 : "implemented_footprint(): what each engine here keeps, sender included");
  fmt::print("{:<8} {:>10} {:>10}   (per QP beyond the base context, per NIC)\n", "engine",
             "per-QP B", "shared B");
  for (const EngineMemory& e : engines) {
    fmt::print("{:<8} {:>10} {:>10}\n", rnic::recovery::to_string(e.kind), e.footprint.per_qp_bytes,
               e.footprint.shared_bytes);
  }
  print_table("SR overhead, bytes: N x per-QP + shared (what Fig. 8(b) plots)", o, engines,
              sr_overhead);
  print_table("total recovery memory, bytes: N x (256 + per-QP) + shared", o, engines, total);

  fmt::print("\ncrossovers: FaSR's SR overhead (and total) is below the engine's from N QPs on\n");
  // Below every selective engine from the largest of their crossovers on, if all have one.
  uint64_t all = 1;
  bool all_never = false;
  for (const EngineMemory& e : engines) {
    if (e.kind == EngineKind::fasr) continue;
    fmt::print("  {:<6} {}\n", rnic::recovery::to_string(e.kind),
               crossover_text(e.fasr_below_from));
    if (e.kind == EngineKind::gbn) continue;  // not a selective engine
    if (e.fasr_below_from) {
      all = std::max(all, *e.fasr_below_from);
    } else {
      all_never = true;
    }
  }
  fmt::print("  every other selective engine (irn, srnic): {}\n",
             all_never ? std::string("never") : fmt::format("{}", all));
}

void write_csv(const Options& o, const std::vector<EngineMemory>& engines) {
  std::ofstream out(o.csv_file);
  if (!out) {
    throw Error("cannot write {}: check that its folder exists and is writable", o.csv_file);
  }
  out << "accounting,engine,bdp_packets,fasr_units,fasr_blocks,fasr_block_bits,qps,"
         "base_context_bytes,per_qp_bytes,shared_bytes,sr_overhead_bytes,total_bytes,"
         "fasr_below_from\n";
  for (const EngineMemory& e : engines) {
    const std::string below =
        e.fasr_below_from ? fmt::format("{}", *e.fasr_below_from) : std::string();
    for (uint64_t n : o.qps) {
      out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", name(e.accounting),
                         rnic::recovery::to_string(e.kind), o.bdp_packets, o.pool.units,
                         o.pool.blocks, o.pool.block_bits, n, kBaseContextBytes,
                         e.footprint.per_qp_bytes, e.footprint.shared_bytes,
                         sr_overhead(e.footprint, n), total(e.footprint, n), below);
    }
  }
  if (!out.flush()) throw Error("writing {} failed", o.csv_file);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "bifrost-fasr-memory: NIC memory of each loss-recovery engine (gbn, irn, srnic, fasr) "
      "for N QPs, from the engines' own accounting (the paper's, and what each implementation "
      "keeps with its sender), and where FaSR's becomes the smallest"};
  app.add_option("--qps,-n", o.qps, "QP counts, comma-separated (1..2^24: a QPN is 24 bits)")
      ->delimiter(',')
      ->check(whole(1, kMaxQps))
      ->capture_default_str();
  app.add_option(
         "--bdp-packets", o.bdp_packets,
         "packets in flight per QP, sizes IRN's bitmaps (the paper's 74: 100 Gb/s x 6 us / 1 KB "
         "MTU, rounded up)")
      ->check(whole(0, UINT32_MAX))
      ->capture_default_str();
  app.add_option("--fasr-units", o.pool.units, "FaSR pool: SR state units (305 bits each)")
      ->check(whole(0, UINT32_MAX))
      ->capture_default_str();
  app.add_option("--fasr-blocks", o.pool.blocks, "FaSR pool: bitmap blocks")
      ->check(whole(0, UINT32_MAX))
      ->capture_default_str();
  app.add_option("--fasr-block-bits", o.pool.block_bits, "FaSR pool: bits per block, 10 or 16")
      ->check(whole(0, UINT32_MAX))
      ->capture_default_str();
  app.add_option("--csv", o.csv_file, "write one row per engine and QP count as CSV");
  CLI11_PARSE(app, argc, argv);

  try {
    check(o);
    fmt::print(
        "bifrost-fasr-memory: BDP {} packets; FaSR pool {} units + {} blocks of {} bits ({} B as "
        "laid out); base context {} B per QP\n",
        o.bdp_packets, o.pool.units, o.pool.blocks, o.pool.block_bits,
        rnic::recovery::fasr_pool_bytes(o.pool), kBaseContextBytes);
    std::vector<EngineMemory> all;
    for (Accounting a : kAccountings) {
      const std::vector<EngineMemory> engines = build(o, a);
      print_report(o, a, engines);
      all.insert(all.end(), engines.begin(), engines.end());
    }
    if (!o.csv_file.empty()) write_csv(o, all);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "bifrost-fasr-memory: {}\n", e.what());
    return 2;
  }
}
