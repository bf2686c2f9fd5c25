#pragma once
// How long a selective-repeat action takes in each engine's NIC, and what a slow action costs
// the NIC's throughput: the model behind the FaSR paper's Figs. 9(a), 9(c) and 2.
//
// The paper's numbers (section V-D2): on-chip SR actions take "two clock cycles (10ns)"; FaSR's
// fast path (lost-cnt and sack-high, no bitmap) gives a median of 5 ns, its slow path (bitmap
// blocks walked in chain order) a predicted 12 ns, hence an expected 5.5 to 7 ns and a single
// pipeline of "181M" packets per second (1 / 5.5 ns). SRNIC waits for the host whenever it
// needs an answer from its bitmap (updating RCV-NXT, collecting the PSNs to resend): 1.2 us of
// PCIe (section V-A), 1.4 us for the whole software query measured at 1% loss (section II).
// Section II's Fig. 2: each such query pauses the receive pipeline, so the time lost per
// packet grows with the line rate, "as high as 40%" at 400 Gb/s and 1% loss.
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/recovery/engine.h"

namespace bifrost::rnic::recovery {

struct SrLatencyConfig {
  Time cycle = Time::ns(5);       // the FPGA's clock: two cycles are the paper's 10 ns
  uint32_t fast_path_cycles = 1;  // FaSR's fast path: registers only (the 5 ns median)
  uint32_t bitmap_cycles = 2;     // an on-chip bitmap read-modify-write (IRN, SRNIC's NIC part)
  Time fasr_slow_path = Time::ns(12);  // the paper's prediction for FaSR's slow path
  Time host_query = Time::ns(1200);    // SRNIC: the PCIe round trip to the host bitmap
};

// The SR actions of Fig. 9(a).
enum class SrAction : uint8_t {
  record_out_of_order,  // receiver: note an out-of-order PSN
  return_sack,          // receiver: build the SACK
  update_rcv_nxt,       // receiver: move RCV-NXT after the hole is filled
  find_retransmit_psn,  // sender: which PSNs to resend
};
// FaSR's path for the QP (only FaSR has two); the other engines ignore it.
enum class SrPath : uint8_t { fast, slow };

// The latency of one action. Throws Error for go-back-N, which keeps no SR state.
Time sr_action_latency(const SrLatencyConfig& config, EngineKind engine, SrAction action,
                       SrPath path);

// FaSR's expected SR latency when a fraction `fast_fraction` of actions take the fast path.
// Throws Error for a fraction outside [0, 1].
Time fasr_expected_latency(const SrLatencyConfig& config, double fast_fraction);
// The median: the fast path's latency when at least half the actions take it.
Time fasr_median_latency(const SrLatencyConfig& config, double fast_fraction);
// The fast-path share that gives an expected latency of `expected` (clamped to [0, 1]).
double fasr_fast_fraction_for(const SrLatencyConfig& config, Time expected);

// Packets per second one SR pipeline processes at `latency` per packet, in millions.
double sr_pipeline_mpps(Time latency);
// The line rate such a pipeline keeps up with at `frame_bytes` per packet on the wire.
Rate sr_pipeline_line_rate(Time latency, uint32_t frame_bytes);

// The fraction of `line_rate` a receive pipeline that serves at line rate keeps when each
// lost packet pauses it for `queries_per_loss` queries of `query` (Fig. 2): per delivered
// packet it spends a frame time plus loss * queries * query.
double throughput_under_query_stalls(Rate line_rate, double loss, Time query, uint32_t frame_bytes,
                                     double queries_per_loss);

}  // namespace bifrost::rnic::recovery
