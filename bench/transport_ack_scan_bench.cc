// The sender's per-ACK bookkeeping against the size of its window: an ACK's cumulative part
// (which open WQEs it newly covers) and the in-order rule (open WQEs older than the newest one
// it names are lost), each way Sender::on_ack has done it:
//   baseline  the old way: the cumulative part tested against every open WQE of the window,
//             and the in-order rule walking the window from its front;
//   indexed   the new way: the open WQEs by SEND number (FloorIndex) visited only between the
//             previous floor and this one, and the in-order rule from where the last ACK's
//             ended (SelectiveWindow::for_each_open_between).
// A steady window of W WQEs (128: the default max_outstanding_wqes; 1024) in which every ACK
// acknowledges the 8 oldest by its cumulative part and 8 new ones are posted. Items are ACKs;
// the ratio report prints indexed / baseline throughput for each W.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>

#include "bifrost/transport/reliability/selective_window.h"
#include "support/ratio_report.h"
#include "transport/floor_index.h"

namespace {

using namespace bifrost::transport;

constexpr uint64_t kPerAck = 8;

struct Wqe {
  uint64_t global = 0;
  uint32_t bytes = 0;
  bool done = false;
  bool completed = false;
  uint64_t send_number = 0;  // the same as global here: every WQE is a SEND
};

struct Bed {
  SelectiveWindow<Wqe> window;
  FloorIndex by_send_number;
  uint64_t floor = 1;       // every SEND number below it arrived
  uint64_t lost_below = 0;  // indexed: the in-order rule's resume point
  uint64_t settled = 0;     // checksum: what the ACKs settled

  explicit Bed(uint64_t wqes) {
    by_send_number.advance(1, [](uint64_t) {});  // numbers start at 1, as globals do
    post(wqes);
  }
  void post(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      Wqe& w = window.open(4096);
      w.send_number = w.global;
      window.complete(w);
      by_send_number.carry(w.send_number, w.global);
    }
  }
  void settle(Wqe& w) {
    window.settle(w);
    ++settled;
  }
};

void ack_old(Bed& bed) {
  bed.floor += kPerAck;
  const uint64_t floor = bed.floor;
  bed.window.for_each_open([&](Wqe& w) {
    if (w.send_number < floor) bed.settle(w);
  });
  bed.window.for_each_open_before(floor - 1, [&](Wqe& w) { bed.settle(w); });
}

void ack_indexed(Bed& bed) {
  bed.floor += kPerAck;
  bed.by_send_number.advance(bed.floor, [&](uint64_t global) {
    if (Wqe* w = bed.window.find(global); w != nullptr && !w->done) bed.settle(*w);
  });
  bed.window.for_each_open_between(bed.lost_below, bed.floor - 1, [&](Wqe& w) { bed.settle(w); });
  bed.lost_below = std::max(bed.lost_below, bed.floor - 1);
}

template <void (*Ack)(Bed&)>
void acks(benchmark::State& state) {
  Bed bed(static_cast<uint64_t>(state.range(0)));
  for (auto _ : state) {
    Ack(bed);
    bed.window.retire();
    bed.post(kPerAck);
  }
  if (bed.settled != kPerAck * static_cast<uint64_t>(state.iterations())) {
    state.SkipWithError("an ACK settled other than its 8 WQEs");
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(acks<ack_old>)->Name("ack/baseline")->Arg(128)->Arg(1024);
BENCHMARK(acks<ack_indexed>)->Name("ack/indexed")->Arg(128)->Arg(1024);

}  // namespace

int main(int argc, char** argv) {
  return bifrost::bench::run_with_ratios(argc, argv);
}
