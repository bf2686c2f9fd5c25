#include <algorithm>

#include "bifrost/transport/virtuoso/chunk_policy.h"

namespace bifrost::transport::virtuoso {

ChunkSearch::ChunkSearch(const ChunkSearchConfig& config, uint32_t paths, uint64_t block,
                         uint64_t max)
    : config_(config),
      needed_(config.successes_per_step == 0 ? paths : config.successes_per_step),
      block_(block),
      max_(max),
      chunk_(std::min(config.initial, max)) {}

void ChunkSearch::set(uint64_t chunk) {
  chunk = std::clamp(chunk, block_, max_);
  if (chunk != chunk_) ++steps_;
  chunk_ = chunk;
  successes_ = 0;
}

void ChunkSearch::on_success(uint64_t bytes) {
  // Only WRs of the current size test it (a sub-flow's last WR may be shorter).
  if (phase_ == Phase::settled || bytes < chunk_) return;
  if (++successes_ < needed_) return;
  previous_ = chunk_;
  set(phase_ == Phase::binary ? chunk_ * 2 : chunk_ + config_.linear_step);
}

void ChunkSearch::on_retry_exceeded(uint64_t bytes) {
  // A WR larger than the chunk in force was posted before the last back-off (another path's
  // WR of the same iteration): the size it failed at was already given up.
  if (bytes > chunk_) return;
  switch (phase_) {
    case Phase::binary:
      set(previous_ != 0 ? previous_ : chunk_ / 2);
      phase_ = previous_ != 0 ? Phase::linear : Phase::binary;
      break;
    case Phase::linear:
      set(previous_);
      phase_ = Phase::settled;
      settled_chunk_ = chunk_;
      break;
    case Phase::settled:
      if (config_.back_off_when_settled && chunk_ > block_) {
        set(chunk_ > config_.linear_step ? chunk_ - config_.linear_step : block_);
        ++backoffs_;
      }
      break;
  }
}

}  // namespace bifrost::transport::virtuoso
