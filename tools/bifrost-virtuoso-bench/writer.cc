#include "writer.h"

namespace bifrost::virtuoso_bench {

using transport::virtuoso::MpCompletion;
using transport::virtuoso::MpOp;
using transport::virtuoso::MpWr;

Writer::Writer(sim::VirtuosoBed& bed, transport::virtuoso::MpConnection& connection,
               uint64_t length, std::function<void(Time)> on_done)
    : bed_(bed), connection_(connection), length_(length), on_done_(std::move(on_done)) {
  uint32_t seed = 0;
  src_ = bed_.fresh(0, length_, &seed);
  dst_ = bed_.room(1, length_);
  connection_.set_completion_handler([this](const MpCompletion& c) {
    open_ = false;
    if (!c.ok) {
      ++failed_;
      return;
    }
    ++completed_;
    if (on_done_) on_done_(bed_.kernel().now() - posted_);
    if (chained_ && !stopped_ && (limit_ == 0 || completed_ < limit_)) post_one();
  });
}

void Writer::start(uint64_t count) {
  limit_ = count;
  chained_ = true;
  post_one();
}

bool Writer::post_one() {
  if (open_ || stopped_) return false;
  open_ = true;
  posted_ = bed_.kernel().now();
  connection_.post_send(MpWr{.wr_id = next_id_++,
                             .op = MpOp::write,
                             .local = transport::MessageBuffer{&bed_.region(0), src_, length_},
                             .remote = transport::RemoteAddress{dst_, bed_.region(1).rkey}});
  return true;
}

}  // namespace bifrost::virtuoso_bench
