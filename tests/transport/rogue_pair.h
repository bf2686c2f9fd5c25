#pragma once
// Two RoGUE connections on the soft RNICs of a sim::TransportPair, with a content-tracked
// region on each side that the peer may WRITE and READ, and a ledger that checks every verb:
// completed exactly once, its bytes where they belong, every receive taken exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/sim/transport_pair.h"
#include "bifrost/transport/rogue/rogue_connection.h"

namespace bifrost::transport::testing {

class RoguePair {
 public:
  RoguePair(const rogue::RogueConfig& config, const sim::LossyWireConfig& wire,
            const rnic::DeviceConfig& device = {});

  sim::EventKernel& kernel() { return pair_.kernel(); }
  sim::LossyWire& wire() { return pair_.wire(); }
  rogue::RogueConnection& connection(int side) { return *sides_[side].connection; }
  rnic::Device& device(int side) { return *pair_.side(side).device; }

  // A verb of `length` bytes from side `from` with fresh content (READ: fresh content at the
  // peer, read back into a fresh local buffer). SEND also posts a receive at the peer.
  uint64_t write(int from, uint64_t length, bool signaled = true,
                 std::optional<uint32_t> imm = std::nullopt);
  uint64_t read(int from, uint64_t length);
  uint64_t send(int from, uint64_t length, std::optional<uint32_t> imm = std::nullopt);

  // Runs until every verb completed (and every SEND or immediate was received), or `limit`
  // passes; true if everything completed.
  bool run_until_done(Time limit);
  // Every verb completed exactly once with success, its bytes intact at the destination, and
  // every receive taken exactly once. UC: only completions (UC delivers nothing for certain).
  ::testing::AssertionResult all_done_once() const;
  uint64_t completed(int side) const;

 private:
  struct Verb {
    rogue::Op op = rogue::Op::write;
    uint64_t length = 0;
    uint64_t source = 0;       // address at the side holding the bytes
    uint64_t destination = 0;  // where they must arrive
    uint32_t seed = 0;
    bool signaled = true;
    bool expects_receive = false;
    uint32_t completions = 0;
    uint32_t receives = 0;
    bool failed = false;
  };
  struct Side {
    std::unique_ptr<rogue::RogueConnection> connection;
    std::unique_ptr<rnic::TokenMemory> memory;
    const rnic::MemoryRegion* region = nullptr;
    uint64_t next_addr = 0;
    std::vector<Verb> verbs;  // what this side posted, by wr_id
  };

  uint64_t fresh(int side, uint64_t length);
  uint64_t post(int from, rogue::Op op, uint64_t length, bool signaled,
                std::optional<uint32_t> imm);
  bool intact(const Side& holder, uint64_t addr, const Verb& v) const;

  sim::TransportPair pair_;
  Side sides_[2];
  uint32_t next_seed_ = 1;
  bool uc_ = false;
};

}  // namespace bifrost::transport::testing
