// bifrost-rnic-loss: goodput of RC QPs under random loss, per loss-recovery engine.
//
//   bifrost-rnic-loss --engine all --loss 0.001,0.01,0.05 --json out.json
//
// Two soft RNICs (sim::NicPair) are joined by a LossyWire that drops each packet with the given
// probability in BOTH directions (data one way, ACK/NAK/SACK the other). One connected RC QP
// streams fixed-size RDMA WRITEs (or SENDs) back to back: the application keeps `outstanding`
// work requests posted, polls the send CQ every microsecond of simulated time and reposts one
// work request per completion. Goodput is the payload of the messages completed after the
// warm-up divided by the simulated time, and is reported as a fraction of the line rate; a
// sample of completed messages is checked byte for byte (same_content) at the receiver.
//
// The wire's one-way delay is chosen so that the base RTT (an MTU-sized data frame serialized,
// carried, and its ACK serialized and carried back) equals --rtt-us.
//
// --burst-len L > 1 replaces the independent loss by a Gilbert model per direction (bursts of L
// line-rate packet slots on average, see BurstLoss; the long-run loss rate stays --loss).
// --qp-rate-gbps paces the QP below the line rate, as its fair share among N QPs on the link would.
// With --engine fasr the receiver's path statistics (recovery episodes and out-of-order packets on
// FaSR's fast and slow paths) are reported.
// --qps N runs N connected QP pairs at once (round-robin on the NICs' transmit schedulers), and
// --context-cache-bytes gives both NICs a QP-context cache whose misses stall the receive
// pipeline: the many-QP experiment of FaSR's Fig. 7(b)/(c). --opcode mixed and --clients N give
// it the paper's shape: a server issuing READs and WRITEs to N clients, whose NICs b stands for.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "report.h"
#include "runner.h"
#include "scenario.h"

namespace {

using namespace bifrost;
using namespace bifrost::rnic_loss;

std::vector<EngineKind> parse_engines(const std::vector<std::string>& names) {
  std::vector<EngineKind> out;
  for (const std::string& n : names) {
    if (n == "all") {
      for (EngineKind k : {EngineKind::gbn, EngineKind::irn, EngineKind::srnic}) out.push_back(k);
    } else {
      out.push_back(rnic::recovery::parse_engine_kind(n));
    }
  }
  return out;
}

void check(const Options& o) {
  for (double l : o.losses) {
    if (!(l >= 0 && l < 1))
      throw Error("--loss {} is outside [0, 1): give fractions, 0.01 = 1%", l);
  }
  rnic::check_mtu(o.mtu);
  if (o.message_bytes == 0) throw Error("--message-bytes must be positive");
  if (o.rate_gbps <= 0) throw Error("--rate-gbps must be positive");
  if (o.duration_us <= o.warmup_us) {
    throw Error("--duration-us {} must exceed --warmup-us {}", o.duration_us, o.warmup_us);
  }
  if (o.outstanding == 0) throw Error("--outstanding must be at least 1");
  if (!(o.burst_len >= 1)) throw Error("--burst-len {} must be at least 1 packet", o.burst_len);
  for (double l : o.losses) {
    if (o.burst_len > 1 && l / (o.burst_len * (1 - l)) > 1) {
      throw Error("--loss {} cannot average bursts of {} packets: use a longer --burst-len", l,
                  o.burst_len);
    }
  }
  if (o.qp_rate_gbps < 0 || o.qp_rate_gbps > o.rate_gbps) {
    throw Error("--qp-rate-gbps {} must be in [0, --rate-gbps {}] (0: no pacing)", o.qp_rate_gbps,
                o.rate_gbps);
  }
  if (o.qps == 0) throw Error("--qps must be at least 1");
  if (mixed(o) && o.loss_on == "data") {
    throw Error("--loss-on data needs one data direction; --opcode mixed sends data both ways");
  }
  if (mixed(o) && o.qps < 2) {
    throw Error("--opcode mixed needs --qps 2 or more (odd pairs READ, even ones WRITE)");
  }
  if (o.clients > 1 && o.context_cache_bytes == 0 && !o.pipeline) {
    throw Error(
        "--clients {} scales the clients' context cache and receive pipeline: give "
        "--context-cache-bytes or --pipeline",
        o.clients);
  }
  if (o.start_spread_us < 0 || o.start_spread_us >= o.duration_us) {
    throw Error("--start-spread-us {} must be in [0, --duration-us {})", o.start_spread_us,
                o.duration_us);
  }
  if (o.cache_miss_ns < 0) throw Error("--cache-miss-ns must not be negative");
  if (o.gbn_min_rto_us < 0) throw Error("--gbn-min-rto must not be negative");
  if (o.pipeline && (o.pipeline_gbps <= 0 || o.pipeline_buffer_kib == 0)) {
    throw Error("--pipeline-gbps and --pipeline-buffer-kib must be positive");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "bifrost-rnic-loss: goodput of RC QPs streaming messages over a lossy wire, per "
      "loss-recovery engine (loss applies to data and ACKs alike)"};
  app.add_option("--engine,-e", o.engines,
                 "gbn, irn, srnic, fasr or all (gbn, irn, srnic; comma-separated list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"gbn", "irn", "srnic", "fasr", "all"}))
      ->capture_default_str();
  app.add_option("--loss,-l", o.losses,
                 "loss probabilities per packet and direction, comma-separated (0.01 = 1%)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--message-bytes", o.message_bytes, "bytes per message")->capture_default_str();
  app.add_option("--opcode", o.opcode,
                 "write (RDMA WRITE), send, read (RDMA READ: the data comes back in responses) "
                 "or mixed (odd-numbered QP pairs READ, even ones WRITE)")
      ->check(CLI::IsMember({"write", "send", "read", "mixed"}))
      ->capture_default_str();
  app.add_option("--rate-gbps", o.rate_gbps, "line rate, each direction")->capture_default_str();
  app.add_option("--rtt-us", o.rtt_us, "base RTT: MTU frame + ACK serialization + 2 x delay")
      ->capture_default_str();
  app.add_option("--mtu", o.mtu, "path MTU (256..4096)")->capture_default_str();
  app.add_option("--duration-us", o.duration_us, "simulated time per point")->capture_default_str();
  app.add_option("--warmup-us", o.warmup_us, "completions before this are not counted")
      ->capture_default_str();
  app.add_option("--outstanding", o.outstanding, "work requests kept posted")
      ->capture_default_str();
  app.add_option("--qps", o.qps,
                 "connected QP pairs, each keeping --outstanding work requests posted")
      ->capture_default_str();
  app.add_option("--start-spread-us", o.start_spread_us,
                 "start the QP pairs one after another, evenly over this time (0: all at once)")
      ->capture_default_str();
  app.add_option("--burst-packets", o.burst_packets,
                 "NIC transmit scheduler: packets a QP sends per turn (1: packet round-robin)")
      ->check(CLI::Range(1u, 1u << 20))
      ->capture_default_str();
  app.add_option("--ack-every", o.ack_every,
                 "RC responder: ACK after this many in-order packets besides every AckReq (0: "
                 "only AckReq)")
      ->capture_default_str();
  app.add_option("--ack-delay-us", o.ack_delay_us,
                 "RC responder: the longest an in-order packet waits for its ACK, us (0: no bound)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--burst-len", o.burst_len,
                 "mean loss burst in line-rate packet slots (Gilbert model, each direction; the "
                 "loss rate stays --loss); 1 = independent loss")
      ->capture_default_str();
  app.add_option("--loss-on", o.loss_on,
                 "which packets the loss hits: both directions, or only the data's (the "
                 "requests, READ responses); ACKs, SACKs and NAKs then always arrive")
      ->check(CLI::IsMember({"both", "data"}))
      ->capture_default_str();
  app.add_option("--qp-rate-gbps", o.qp_rate_gbps,
                 "pace the QP at this rate (its share of the link among N QPs); 0 = no pacing")
      ->capture_default_str();
  app.add_option("--gbn-timeout", o.gbn_timeout,
                 "RC QP timeout exponent: 4.096 us * 2^t (GBN's RTO; 0 = infinite)")
      ->check(CLI::Range(0, 31))
      ->capture_default_str();
  app.add_option("--gbn-min-rto", o.gbn_min_rto_us, "GBN: floor under the QP timeout, us")
      ->capture_default_str();
  app.add_option("--read-gap", o.read_gap,
                 "GBN, --opcode read: after a lost READ response, reissue the READ from it at "
                 "once, or wait for the QP timeout")
      ->check(CLI::IsMember({"reissue", "timeout"}))
      ->capture_default_str();
  app.add_option("--retry-cnt", o.retry_cnt, "RC retry count before the QP fails")
      ->check(CLI::Range(0, 7))
      ->capture_default_str();
  app.add_option(
         "--bdp-packets", o.bdp_packets,
         "IRN/SRNIC/FaSR: packets in flight cap; also the size of IRN's five bitmaps, which "
         "its context (and so the context cache) holds")
      ->capture_default_str();
  app.add_option("--rto-low-us", o.rto_low_us,
                 "IRN/SRNIC/FaSR: RTO with at most 3 packets in flight")
      ->capture_default_str();
  app.add_option("--rto-high-us", o.rto_high_us, "IRN/SRNIC/FaSR: RTO otherwise")
      ->capture_default_str();
  app.add_flag("--lean-sr-header", o.lean_sr_header,
               "FaSR: charge the paper's lean SR extensions (section IV-D: 6 B on SEND, 8 B on "
               "WRITE, 14 B with immediate data) instead of 24 B; a size model");
  app.add_flag(
      "--pipeline", o.pipeline,
      "model the NICs' finite receive pipeline (needed for SRNIC's bitmap stalls to cost)");
  app.add_option("--pipeline-gbps", o.pipeline_gbps, "receive pipeline service rate")
      ->capture_default_str();
  app.add_option("--pipeline-per-packet-ns", o.pipeline_per_packet_ns,
                 "receive pipeline fixed time per packet")
      ->capture_default_str();
  app.add_option("--pipeline-buffer-kib", o.pipeline_buffer_kib, "receive buffer")
      ->capture_default_str();
  app.add_option("--srnic-stall-ns", o.srnic_stall_ns,
                 "SRNIC: pipeline stall per host-bitmap query (an RCV-NXT update over recorded "
                 "PSNs, a retransmit-PSN lookup for a SACK that opens a hole)")
      ->capture_default_str();
  app.add_option("--context-cache-bytes", o.context_cache_bytes,
                 "QP-context cache of both NICs (0: none); a miss stalls the receive pipeline, "
                 "which this turns on")
      ->capture_default_str();
  app.add_option("--clients", o.clients,
                 "the responder NIC stands for this many client NICs: its context cache and "
                 "receive pipeline are this many times the requester's")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  app.add_option("--cache-miss-ns", o.cache_miss_ns, "stall per context-cache miss (a PCIe fetch)")
      ->capture_default_str();
  app.add_option("--context-fetches", o.context_fetches,
                 "context fetches in flight at once (0: each miss stalls the pipeline in turn; "
                 "N: misses overlap, a packet waits only for its own context)")
      ->capture_default_str();
  app.add_option("--verify-every", o.verify_every,
                 "check the content of every Nth message at the receiver (0: never)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "wire loss and device seed")->capture_default_str();
  app.add_option("--json", o.json_file, "write the scenario and results as JSON");
  app.add_option("--csv", o.csv_file, "write the results as CSV");
  app.add_flag("--quiet,-q", o.quiet, "no progress lines on stderr");
  CLI11_PARSE(app, argc, argv);

  try {
    check(o);
    const std::vector<EngineKind> engines = parse_engines(o.engines);
    const size_t total = engines.size() * o.losses.size();
    if (!o.quiet) {
      fmt::print(stderr,
                 "bifrost-rnic-loss: {} points, {} B messages at {} Gb/s, RTT {} us (one-way "
                 "delay {:.3f} us), MTU {}, {} us simulated each; loss on {}\n",
                 total, o.message_bytes, o.rate_gbps, o.rtt_us, one_way_delay(o).microseconds(),
                 o.mtu, o.duration_us, o.loss_on == "data" ? "data only" : "data and ACKs");
    }
    std::vector<Result> results;
    bool failed = false;
    for (EngineKind engine : engines) {
      for (double loss : o.losses) {
        const size_t index = results.size() + 1;
        auto progress = [&](double sim_us) {
          fmt::print(stderr, "  [{}/{}] {} loss {:g}: {:.0f}/{:.0f} us simulated\n", index, total,
                     rnic::recovery::to_string(engine), loss, sim_us, o.duration_us);
        };
        Result r = run_point(o, engine, loss, o.quiet ? std::function<void(double)>{} : progress);
        if (!o.quiet) {
          fmt::print(stderr, "[{}/{}] {} loss {:g}: goodput {:.1f}% of line rate ({:.2f} s wall)\n",
                     index, total, rnic::recovery::to_string(engine), loss,
                     r.goodput_fraction * 100, r.wall_seconds);
        }
        if (r.verify_failures > 0) {
          fmt::print(stderr, "bifrost-rnic-loss: {} loss {:g}: {} of {} checked messages differ\n",
                     rnic::recovery::to_string(engine), loss, r.verify_failures, r.verified);
          failed = true;
        }
        const double rto_us = largest_rto_us(o, engine);
        if (r.longest_gap_us > 10 * rto_us) {
          fmt::print(
              stderr,
              "bifrost-rnic-loss: {} loss {:g}: WARNING no completion for {:.0f} us (last at "
              "{:.0f} us), over 10 x the RTO of {:.0f} us: the QP looks stuck\n",
              rnic::recovery::to_string(engine), loss, r.longest_gap_us, r.last_completion_us,
              rto_us);
        }
        if (!r.qp_error.empty()) {
          fmt::print(stderr,
                     "bifrost-rnic-loss: {} loss {:g}: the QP failed with {} at {:.1f} us\n",
                     rnic::recovery::to_string(engine), loss, r.qp_error, r.qp_error_at_us);
        }
        results.push_back(std::move(r));
      }
    }
    print_table(results);
    if (!o.json_file.empty()) {
      nlohmann::json doc;
      doc["tool"] = "bifrost-rnic-loss";
      doc["scenario"] = scenario_json(o);
      doc["points"] = nlohmann::json::array();
      for (const Result& r : results) doc["points"].push_back(to_json(r));
      std::ofstream out(o.json_file);
      if (!out) {
        throw Error("cannot write {}: check that its folder exists and is writable", o.json_file);
      }
      out << doc.dump(2) << "\n";
    }
    if (!o.csv_file.empty()) write_csv(o.csv_file, o, results);
    return failed ? 3 : 0;
  } catch (const Error& e) {
    fmt::print(stderr, "bifrost-rnic-loss: {}\n", e.what());
    return 2;
  }
}
