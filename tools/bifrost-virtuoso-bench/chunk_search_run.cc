// Table 2: per K, the chunk (WR size) the lossy search settles on, the total per iteration
// (K x chunk, the paper's "Max Size") and per path (its "Avg Size"), then check_wrs more WRs at
// that size and how many of them failed with RETRY_EXC.
#include <fmt/format.h>

#include "bifrost/core/error.h"
#include "runs.h"
#include "writer.h"

namespace bifrost::virtuoso_bench {

using transport::virtuoso::ChunkSearch;

void run_chunk_search(const ChunkSearchOptions& o, std::FILE* out) {
  fmt::print(out,
             "paths,settled,chunk_per_path,total_per_iteration,steps,retry_exceeded,recoveries,"
             "wrs_to_settle,ms_to_settle,check_wrs,check_retry_exceeded,backoffs,final_chunk,"
             "drops\n");
  for (const uint32_t k : o.paths) {
    sim::VirtuosoBedConfig bc;
    bc.paths = k;
    bc.switch_buffer = o.buffer;
    bc.device.recovery.kind = rnic::recovery::EngineKind::gbn;
    sim::VirtuosoBed bed(bc);
    transport::virtuoso::VirtuosoConfig c;
    c.paths = k;
    c.probe = false;
    c.rc_retry_cnt = o.retry_cnt;
    c.rc_timeout = o.timeout;
    c.chunk_search.enabled = true;
    c.chunk_search.initial = o.initial;
    c.chunk_search.linear_step = o.step;
    c.chunk_search.successes_per_step = o.iterations_per_step * k;
    c.chunk_search.back_off_when_settled = o.back_off_when_settled;
    auto pair = bed.connect(c);
    transport::virtuoso::MpConnection& a = *pair.side[0];
    const auto& search = dynamic_cast<const ChunkSearch&>(a.chunk_policy());
    Writer writer(bed, a, k * o.message_per_path);
    writer.start(o.max_messages);
    const auto finished = [&] {
      return writer.failed() > 0 || (!writer.open() && writer.completed() >= o.max_messages);
    };
    bed.run_until([&] { return search.phase() == ChunkSearch::Phase::settled || finished(); },
                  Time::s(3600));
    const bool settled = search.phase() == ChunkSearch::Phase::settled;
    const uint64_t settled_chunk = settled ? search.settled_chunk() : search.chunk();
    const transport::virtuoso::VirtuosoStats at_settle = a.stats();
    const Time settle_time = bed.kernel().now();
    // WRs of the settled size, reposts after a recovery not counted as new ones.
    const auto fresh = [&] { return a.stats().wrs_posted - a.stats().wrs_reposted; };
    const uint64_t fresh_at_settle = fresh();
    if (settled) {
      bed.run_until([&] { return fresh() >= fresh_at_settle + o.check_wrs || finished(); },
                    Time::s(60));
    }
    writer.stop();
    bed.run_until([&] { return !writer.open(); }, Time::s(60));
    const transport::virtuoso::VirtuosoStats& s = a.stats();
    uint64_t drops = 0;
    for (const auto& sw : bed.network().switches()) drops += sw->counters().drops.total_packets();
    fmt::print(out, "{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{}\n", k, settled ? 1 : 0,
               settled_chunk, settled_chunk * k, search.steps(), at_settle.retry_exceeded,
               at_settle.recoveries, at_settle.wrs_posted, settle_time.seconds() * 1e3,
               fresh() - fresh_at_settle, s.retry_exceeded - at_settle.retry_exceeded,
               search.backoffs(), search.chunk(), drops);
    std::fflush(out);
  }
}

}  // namespace bifrost::virtuoso_bench
