#pragma once
// sim::TransportPair plus a ledger that checks every delivery: which message it is (its first 8
// bytes carry its index), that its bytes are intact, and that it arrives exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/sim/transport_pair.h"

namespace bifrost::transport::testing {

using TransportPairConfig = sim::TransportPairConfig;

// For property tests: a 1..10 us wire with random loss (up to max_loss), duplication (up to
// 2%) and reordering (up to 5%), and 4 KiB or 1 KiB units (MTU to match); `seed` also seeds
// the wire and the endpoints.
TransportPairConfig random_lossy_config(RandomStream& r, uint64_t seed, Reliability reliability,
                                        double max_loss);

// For loss-recovery tests: a lossless 2 us wire and A.1.2's hint (hint_when_idle off: no tail
// probe, so only the retransmission timer finds a lost tail).
TransportPairConfig lossless_paper_hint();

// A UC SEND of one packet (a small message or a piece), the kind these tests drop.
bool is_uc_send(const world::Packet& p);

// For control-message tests: a 2 us wire and requests repeated every 200 us.
TransportPairConfig control_test_config(Reliability reliability);

// The name of a test instance parameterised by mode: "Rc" or "Uc".
std::string mode_name(const ::testing::TestParamInfo<Reliability>& info);

class TransportPair {
 public:
  static constexpr uint64_t kAppBase = sim::TransportPair::kAppBase;

  struct Side {
    Connection* connection = nullptr;
    rnic::TokenMemory* app = nullptr;
    const rnic::MemoryRegion* app_region = nullptr;
    uint64_t next_addr = kAppBase;
    struct Sent {
      uint64_t addr = 0;
      uint64_t length = 0;
      bool completed = false;
    };
    std::vector<Sent> sent;                // what this side sent, by index
    std::vector<uint32_t> received_count;  // of the peer's messages, by index
    uint64_t corrupt = 0;                  // deliveries whose bytes differ from what was sent
    uint64_t unknown = 0;                  // deliveries naming no message
  };

  explicit TransportPair(const TransportPairConfig& config);

  sim::EventKernel& kernel() { return pair_.kernel(); }
  sim::LossyWire& wire() { return pair_.wire(); }
  Side& side(int i) { return sides_[i & 1]; }
  // The devices and endpoints underneath.
  sim::TransportPair& sim() { return pair_; }

  // Sends a message of `length` bytes (at least 8) from side `from` with fresh content.
  uint64_t send(int from, uint64_t length);
  // Runs until every message sent so far completed and was delivered, or `limit` passes.
  // Returns true if everything completed.
  bool run_until_done(Time limit);
  // Every message sent was delivered exactly once, intact, and completed.
  ::testing::AssertionResult all_delivered_once() const;

 private:
  void on_delivery(int to, const Delivery& delivery);
  bool done() const;

  sim::TransportPair pair_;
  Side sides_[2];
};

}  // namespace bifrost::transport::testing
