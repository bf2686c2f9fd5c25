// Fig. 8: for each K and message size, MP WRITEs one after another (PFC on, eq. (1) on equal
// paths, no chunk search) until bytes_per_point moved (at least min_messages), and the
// sender's CPU proxy per MB: library calls, constituent WRs posted, CQEs taken from the shared
// CQ and completion-channel wake-ups. The receiver of a WRITE is passive; its counts are shown
// to prove it.
#include <fmt/format.h>

#include <algorithm>

#include "bifrost/core/error.h"
#include "runs.h"
#include "writer.h"

namespace bifrost::virtuoso_bench {

void run_cost(const CostOptions& o, std::FILE* out) {
  fmt::print(out,
             "paths,message_bytes,messages,calls_per_mb,wrs_per_mb,cqes_per_mb,wakeups_per_mb,"
             "receiver_cqes,goodput_gbps,nic_retransmitted,nic_timeouts,drops\n");
  for (const uint32_t k : o.paths) {
    for (const uint64_t size : o.sizes) {
      sim::VirtuosoBedConfig bc;
      bc.paths = k;
      bc.pfc = true;
      bc.switch_buffer = Bytes(12'000'000);
      sim::VirtuosoBed bed(bc);
      transport::virtuoso::VirtuosoConfig c;
      c.paths = k;
      c.probe = false;
      auto pair = bed.connect(c);
      const uint64_t count =
          std::max<uint64_t>(o.min_messages, (o.bytes_per_point + size - 1) / size);
      Writer writer(bed, *pair.side[0], size);
      const Time start = bed.kernel().now();
      writer.start(count);
      if (!bed.run_until([&] { return writer.completed() + writer.failed() >= count; },
                         Time::s(3600)) ||
          writer.failed() > 0) {
        throw Error("cost: K = {}, {} B: {} of {} MP WRITEs completed, {} failed", k, size,
                    writer.completed(), count, writer.failed());
      }
      const double seconds = (bed.kernel().now() - start).seconds();
      const auto& s = pair.side[0]->stats();
      const rnic::DataPathCounters nic = bed.device(0).data_path_counters();
      uint64_t drops = 0;
      for (const auto& sw : bed.network().switches()) drops += sw->counters().drops.total_packets();
      fmt::print(out, "{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{},{:.4f},{},{},{}\n", k, size, count,
                 s.per_mb(s.library_calls), s.per_mb(s.wrs_posted), s.per_mb(s.cqes),
                 s.per_mb(s.wakeups), pair.side[1]->stats().cqes,
                 static_cast<double>(s.bytes) * 8 / seconds / 1e9, nic.tx_retransmitted,
                 nic.timeouts, drops);
      std::fflush(out);
    }
  }
}

}  // namespace bifrost::virtuoso_bench
