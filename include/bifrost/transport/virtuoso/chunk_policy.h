#pragma once
// Congestion avoidance as a plug-in (§3.5): the largest WR a path may carry and how many WRs a
// path keeps in flight, told of every constituent WR's fate. FixedChunk is the lossless
// default; ChunkSearch is the paper's search for lossy networks.
#include <cstdint>

#include "bifrost/transport/virtuoso/virtuoso_config.h"

namespace bifrost::transport::virtuoso {

class ChunkPolicy {
 public:
  virtual ~ChunkPolicy() = default;
  virtual uint64_t chunk() const = 0;
  virtual uint32_t in_flight_per_path() const = 0;
  // Whether WRs go in iterations: one WR per path, the next iteration once every path's WR
  // has completed (the paper's Fig. 3(b), "posted in turns followed by success CQEs").
  virtual bool iterations() const { return false; }
  // A WR of `bytes` completed successfully / failed with RETRY_EXC.
  virtual void on_success(uint64_t bytes) = 0;
  virtual void on_retry_exceeded(uint64_t bytes) = 0;
};

class FixedChunk final : public ChunkPolicy {
 public:
  FixedChunk(uint64_t chunk, uint32_t in_flight, bool iterations = false)
      : chunk_(chunk), in_flight_(in_flight), iterations_(iterations) {}
  uint64_t chunk() const override { return chunk_; }
  uint32_t in_flight_per_path() const override { return in_flight_; }
  bool iterations() const override { return iterations_; }
  void on_success(uint64_t) override {}
  void on_retry_exceeded(uint64_t) override {}

 private:
  uint64_t chunk_;
  uint32_t in_flight_;
  bool iterations_;
};

// Iterations of one WR per path ("posted in turns followed by success CQEs", Fig. 3(b)): every
// path's WR of an iteration starts together, so the size that overflows the bottleneck is the
// same in every iteration (Table 2 reports the total per iteration). The size
// doubles after `successes` WRs of the current size succeed; the first RETRY_EXC goes back to
// the previous size and switches to steps of linear_step; the next RETRY_EXC goes back again
// and the search is settled there. A failure of the very first size halves it (there is no
// previous one), never below `block`.
class ChunkSearch final : public ChunkPolicy {
 public:
  enum class Phase : uint8_t { binary, linear, settled };

  ChunkSearch(const ChunkSearchConfig& config, uint32_t paths, uint64_t block, uint64_t max);
  uint64_t chunk() const override { return chunk_; }
  uint32_t in_flight_per_path() const override { return 1; }
  bool iterations() const override { return true; }
  void on_success(uint64_t bytes) override;
  void on_retry_exceeded(uint64_t bytes) override;

  Phase phase() const { return phase_; }
  uint64_t steps() const { return steps_; }  // size changes so far
  // Steps down after settling (ChunkSearchConfig::back_off_when_settled).
  uint64_t backoffs() const { return backoffs_; }
  // The size the search settled on (0 before), whatever back-offs came after.
  uint64_t settled_chunk() const { return settled_chunk_; }

 private:
  void set(uint64_t chunk);

  ChunkSearchConfig config_;
  uint32_t needed_;
  uint64_t block_;
  uint64_t max_;
  Phase phase_ = Phase::binary;
  uint64_t chunk_;
  uint64_t previous_ = 0;  // the last size that succeeded
  uint32_t successes_ = 0;
  uint64_t steps_ = 0;
  uint64_t backoffs_ = 0;
  uint64_t settled_chunk_ = 0;
};

}  // namespace bifrost::transport::virtuoso
