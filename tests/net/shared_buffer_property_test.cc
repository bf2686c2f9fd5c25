// Property tests of the shared buffer: under random admissions and releases the buffer never
// holds more than its size, each partition stays within its limit, a lossy queue's shared bytes
// never pass alpha x the free shared bytes when admitted, and everything returns to zero. Then
// a random-traffic run through a switch: occupancy sampled every microsecond never exceeds the
// buffer, lossless priorities with bound-sized headroom lose nothing, and every packet is
// delivered or counted as dropped.
#include "bifrost/net/shared_buffer.h"

#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"
#include "support/property.h"

namespace bifrost::net {
namespace {

struct Held {
  uint32_t in;
  uint32_t out;
  int priority;
  uint32_t bytes;
  BufferPool pool;
};

TEST(SharedBufferProperty, RandomAdmitsAndReleasesKeepEveryInvariant) {
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    RandomStream rng(seed, "shared-buffer-property");
    const auto ports = static_cast<uint32_t>(rng.uniform_int(2, 8));
    const double alphas[] = {0.125, 0.5, 1.0, 2.0, 8.0};
    SharedBufferConfig config{.total = Bytes(rng.uniform_int(60'000, 400'000)),
                              .reserved_per_queue = Bytes(rng.uniform_int(0, 500)),
                              .alpha = alphas[rng.uniform_int(0, 4)]};
    SharedBuffer buffer(config, ports);
    uint64_t headroom = 0;
    for (uint32_t p = 0; p < ports; ++p) {
      const IngressLimits lossless{.lossless = true,
                                   .xoff = rng.bernoulli(0.5)
                                               ? Threshold::fixed(Bytes(rng.uniform_int(0, 30'000)))
                                               : Threshold::dynamic(alphas[rng.uniform_int(0, 4)]),
                                   .headroom = Bytes(rng.uniform_int(0, 3000))};
      buffer.set_ingress_limits(p, 3, lossless);
      headroom += lossless.headroom.count();
    }
    ASSERT_EQ(
        buffer.shared_size().count(),
        config.total.count() - config.reserved_per_queue.count() * ports * kPriorities - headroom);
    std::vector<Held> held;
    for (int step = 0; step < 20'000; ++step) {
      if (held.empty() || rng.bernoulli(0.55)) {
        Held h{static_cast<uint32_t>(rng.uniform_int(0, ports - 1)),
               static_cast<uint32_t>(rng.uniform_int(0, ports - 1)),
               rng.bernoulli(0.5) ? 3 : static_cast<int>(rng.uniform_int(0, 7)),
               static_cast<uint32_t>(rng.uniform_int(64, 1600)), BufferPool::kShared};
        const Bytes free_before = buffer.shared_free();
        const Bytes queue_before = buffer.queue_shared(h.out, h.priority);
        const Admission a = buffer.admit(h.in, h.out, h.priority, h.bytes);
        if (a.admitted) {
          h.pool = a.pool;
          held.push_back(h);
          if (a.pool == BufferPool::kShared && h.priority != 3) {
            // The dynamic threshold, checked after adding the frame.
            ASSERT_LE(static_cast<double>(buffer.queue_shared(h.out, h.priority).count()),
                      config.alpha * static_cast<double>(buffer.shared_free().count()));
          }
          if (a.pool == BufferPool::kReserved) {
            ASSERT_LE(buffer.queue_reserved(h.out, h.priority), config.reserved_per_queue);
          }
        } else if (h.priority != 3) {
          ASSERT_TRUE(a.reason == DropReason::kNoBuffer ||
                      a.reason == DropReason::kDynamicThreshold);
          if (a.reason == DropReason::kNoBuffer) {
            ASSERT_GT(Bytes(h.bytes), free_before);
          }
          if (a.reason == DropReason::kDynamicThreshold) {
            ASSERT_GT(static_cast<double>((queue_before + Bytes(h.bytes)).count()),
                      config.alpha * static_cast<double>((free_before - Bytes(h.bytes)).count()));
          }
        } else {
          ASSERT_EQ(a.reason, DropReason::kHeadroomExceeded) << "lossless drops only there";
        }
      } else {
        const std::size_t i = rng.uniform_int(0, held.size() - 1);
        const Held h = held[i];
        held[i] = held.back();
        held.pop_back();
        buffer.release(h.in, h.out, h.priority, h.bytes, h.pool);
      }
      ASSERT_LE(buffer.used(), buffer.total());
      ASSERT_LE(buffer.shared_used(), buffer.shared_size());
      uint64_t sum = 0;
      for (const Held& h : held) sum += h.bytes;
      ASSERT_EQ(buffer.used().count(), sum);
    }
    for (const Held& h : held) buffer.release(h.in, h.out, h.priority, h.bytes, h.pool);
    EXPECT_EQ(buffer.used(), Bytes(0));
    for (uint32_t p = 0; p < ports; ++p) {
      for (int prio = 0; prio < kPriorities; ++prio) {
        EXPECT_EQ(buffer.ingress_usage(p, prio).total(), Bytes(0));
      }
    }
  }
}

TEST(SharedBufferProperty, RandomTrafficThroughASwitchNeverOverfillsTheBuffer) {
  for (uint64_t seed : bifrost::testing::property_seeds(40)) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    RandomStream rng(seed, "switch-traffic");
    testing::Network net;
    constexpr uint32_t kHosts = 6;
    constexpr Time kLatency = Time::ns(300);
    // Priority 3, and sometimes 4, is lossless on every port, with the headroom bound of its
    // link; xoff is fixed or dynamic. The shared pool is random and often small, so that it runs
    // out and pushes lossless frames into headroom below xoff.
    const uint8_t lossless = rng.bernoulli(0.5) ? (1u << 3) : (1u << 3) | (1u << 4);
    const bool dynamic_xoff = rng.bernoulli(0.5);
    std::vector<LinkConfig> links(kHosts);
    std::vector<Bytes> headroom(kHosts);
    uint64_t all_headroom = 0;
    for (uint32_t i = 0; i < kHosts; ++i) {
      links[i].rate = Rate::Gbps(rng.bernoulli(0.5) ? 100 : 25);
      links[i].propagation = Time::ns(static_cast<int64_t>(rng.uniform_int(100, 2000)));
      headroom[i] = pfc_headroom_bound(PfcHeadroomInputs{.rate = links[i].rate,
                                                         .propagation = links[i].propagation,
                                                         .ingress_latency = kLatency,
                                                         .max_frame_bytes = 1102,
                                                         .max_reverse_frame_bytes = 1102});
      all_headroom += headroom[i].count() * static_cast<uint64_t>(std::popcount(lossless));
    }
    SwitchConfig c;
    c.ports = kHosts;
    c.processing_latency = kLatency;
    c.buffer.reserved_per_queue = Bytes(rng.uniform_int(0, 1000));
    c.buffer.total = Bytes(c.buffer.reserved_per_queue.count() * kHosts * kPriorities +
                           all_headroom + rng.uniform_int(20'000, 600'000));
    c.buffer.alpha = rng.bernoulli(0.5) ? 0.5 : 4.0;
    c.seed = seed;
    Switch& sw = net.add_switch(c);
    for (uint32_t i = 0; i < kHosts; ++i) {
      Host& h = net.add_host(static_cast<int>(i));
      net.links.emplace_back(net.kernel, links[i], h.port(), sw.port(i));
      sw.routes().add_route(h.address(), {i});
      PfcConfig p;
      p.lossless_priorities = lossless;
      p.xoff = dynamic_xoff ? Threshold::dynamic(0.25) : Threshold::fixed(Bytes(20'000));
      p.headroom = headroom[i];
      install_pfc(net.kernel, p, sw, i, h.nic());
    }
    LineRateFlows flows(net.kernel, 1024);
    const int priorities[] = {1, 3, 4};
    for (int f = 0; f < 40; ++f) {
      const auto src = rng.uniform_int(0, kHosts - 1);
      auto dst = rng.uniform_int(0, kHosts - 2);
      if (dst >= src) ++dst;
      flows.add(
          LineRateFlowSpec{.src = &net.hosts[src],
                           .dst = &net.hosts[dst],
                           .bytes = rng.uniform_int(1, 300'000),
                           .start = Time::ns(static_cast<int64_t>(rng.uniform_int(0, 50'000))),
                           .priority = priorities[rng.uniform_int(0, 2)]});
    }
    Bytes peak;
    while (net.kernel.pending() > 0) {
      net.kernel.run_until(net.kernel.now() + Time::us(1));
      ASSERT_LE(sw.buffer().used(), sw.buffer().total());
      peak = std::max(peak, sw.buffer().used());
    }
    EXPECT_GT(peak, Bytes(0));
    EXPECT_EQ(sw.buffer().used(), Bytes(0)) << "everything left";
    uint64_t sent = 0;
    uint64_t received = 0;
    for (const auto& f : flows.flows()) {
      sent += f.packets;
      received += f.packets_received;
      if ((lossless >> f.spec.priority) & 1) {
        EXPECT_TRUE(f.complete) << "lossless flow " << f.id;
      }
    }
    EXPECT_EQ(sw.counters().drops[DropReason::kHeadroomExceeded], 0u);
    EXPECT_EQ(received + sw.counters().drops.total_packets(), sent);
  }
}

}  // namespace
}  // namespace bifrost::net
