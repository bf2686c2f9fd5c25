// Fig. 7: mice (one MP WRITE of `mouse` bytes on a 1-path connection over alias 1, i.e. path
// link 0) every `interval`, alone, beside an elephant on that same single path, and beside the
// elephant split over `paths` paths (path link 0 among them). One row per mouse: its FCT, and
// the elephant's goodput over the mice's window.
#include <fmt/format.h>

#include <memory>

#include "runs.h"
#include "writer.h"

namespace bifrost::virtuoso_bench {

namespace {

transport::virtuoso::VirtuosoConfig lossless_config(uint32_t paths) {
  transport::virtuoso::VirtuosoConfig c;
  c.paths = paths;
  c.probe = false;
  return c;
}

}  // namespace

void run_mice(const MiceOptions& o, std::FILE* out) {
  fmt::print(out, "case,elephant_paths,mouse,start_ms,fct_us,elephant_gbps\n");
  struct Case {
    const char* name;
    uint32_t elephant_paths;  // 0: no elephant
  };
  for (const Case& cs : {Case{"alone", 0}, Case{"one_path", 1}, Case{"split", o.paths}}) {
    sim::VirtuosoBedConfig bc;
    bc.paths = o.paths;
    bc.pfc = true;
    bc.switch_buffer = o.buffer;
    sim::VirtuosoBed bed(bc);
    // The elephant first (its buffers), then the mice's connection: both over the same NICs.
    sim::VirtuosoBed::Pair elephant;
    std::unique_ptr<Writer> big;
    if (cs.elephant_paths > 0) {
      elephant = bed.connect(lossless_config(cs.elephant_paths));
      big = std::make_unique<Writer>(bed, *elephant.side[0], o.elephant_message);
      big->start();
    }
    sim::VirtuosoBed::Pair mice = bed.connect(lossless_config(1));
    std::vector<double> fct_us;
    std::vector<double> start_ms;
    Writer mouse(bed, *mice.side[0], o.mouse,
                 [&](Time fct) { fct_us.push_back(fct.seconds() * 1e6); });
    // Two intervals of warm-up: the elephant's queues are built before the first mouse.
    const Time first = o.interval * 2;
    uint32_t late = 0;
    for (uint32_t i = 0; i < o.mice; ++i) {
      bed.kernel().at(first + o.interval * i, [&] {
        if (mouse.post_one()) {
          start_ms.push_back(bed.kernel().now().seconds() * 1e3);
        } else {
          ++late;  // the last mouse is still open: this one is skipped (reported)
        }
      });
    }
    bed.run_until([&] { return bed.kernel().now() >= first; }, first + Time::us(1));
    const uint64_t big_before = big ? big->completed() : 0;
    const Time end = first + o.interval * o.mice;
    bed.run_until([&] { return fct_us.size() + late >= o.mice && bed.kernel().now() >= end; },
                  end + Time::s(10));
    const double window = (bed.kernel().now() - first).seconds();
    const double gbps =
        big ? static_cast<double>((big->completed() - big_before) * o.elephant_message) * 8 /
                  window / 1e9
            : 0.0;
    if (big) big->stop();
    for (size_t i = 0; i < fct_us.size(); ++i) {
      fmt::print(out, "{},{},{},{:.3f},{:.1f},{:.3f}\n", cs.name, cs.elephant_paths, i, start_ms[i],
                 fct_us[i], gbps);
    }
    if (late > 0)
      fmt::print(stderr, "{}: {} mice skipped (the previous one still open)\n", cs.name, late);
    std::fflush(out);
  }
}

}  // namespace bifrost::virtuoso_bench
