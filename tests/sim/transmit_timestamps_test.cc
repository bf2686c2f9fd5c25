// [nic] transmit_timestamps: send completions stamped when the last packet leaves the NIC, so
// Bifröst RC's RTT samples stop counting the time WQEs wait in the sender's own NIC.
#include <gtest/gtest.h>

#include <string>

#include "scenario_text.h"

namespace bifrost::sim {
namespace {

// One Bifröst RC flow at line rate with no congestion control across an idle 40 Gb/s chain of
// four switches: its NIC queues every posted WQE, the fabric queues nothing.
std::string one_flow(bool transmit_timestamps) {
  return std::string(R"(
[simulation]
seed = 1
mtu = 1024
duration = "5ms"
[topology]
kind = "parking_lot"
hops = 3
hosts_per_switch = 2
host_rate = "40Gbps"
host_delay = "1us"
[switch]
buffer = "12MB"
[nic]
model = "rnic"
transmit_timestamps = )") +
         (transmit_timestamps ? "true" : "false") + R"(
[transport]
kind = "bifrost-rc"
cc = "none"
[[workload]]
kind = "incast"
senders = [0]
receiver = 7
size = "1GB"
start = "1us"
)";
}

TEST(TransmitTimestamps, RcRttSamplesRunFromDepartureNotFromPosting) {
  const auto rtt = [](bool on) {
    const RunSummary s = testing::run(one_flow(on));
    for (const auto& d : s.metrics.transport_rtt) {
      if (d.src == "h0") return d;
    }
    ADD_FAILURE() << "no RTT samples from h0";
    return metrics::TransportRttDirection{};
  };
  const metrics::TransportRttDirection from_posting = rtt(false);
  const metrics::TransportRttDirection from_departure = rtt(true);
  ASSERT_GT(from_posting.samples, 100u);
  ASSERT_GT(from_departure.samples, 100u);
  // Five 1 us links each way and 1 KB frames at 40 Gb/s: about 13 us on an idle path.
  EXPECT_LT(from_departure.p50_us, 20.0);
  // From posting, the samples also hold the NIC's queue of posted WQEs.
  EXPECT_GT(from_posting.p50_us, 3 * from_departure.p50_us);
}

TEST(TransmitTimestamps, OffByDefault) {
  std::string text = one_flow(false);
  text.replace(text.find("transmit_timestamps = false\n"), 28, "");
  EXPECT_FALSE(testing::parse(text).nic.transmit_timestamps);
  EXPECT_TRUE(testing::parse(one_flow(true)).nic.transmit_timestamps);
}

}  // namespace
}  // namespace bifrost::sim
