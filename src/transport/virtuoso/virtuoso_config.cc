#include "bifrost/transport/virtuoso/virtuoso_config.h"

#include "bifrost/core/error.h"

namespace bifrost::transport::virtuoso {

void VirtuosoConfig::validate() const {
  if (paths == 0 || paths > 64) throw Error("virtuoso: {} paths; use 1 .. 64", paths);
  if (first_alias == 0) {
    throw Error("virtuoso: first_alias 0 is the host's own address; paths use aliases from 1");
  }
  if (block == 0) throw Error("virtuoso: the block must be at least one byte");
  if (max_wr_bytes < block || max_wr_bytes >= (uint64_t{1} << 31)) {
    throw Error("virtuoso: max_wr_bytes {} must be at least the block ({}) and below 2^31",
                max_wr_bytes, block);
  }
  if (small_send == 0 || small_send >= (uint64_t{1} << 31)) {
    throw Error("virtuoso: small_send {} must be 1 .. 2^31 - 1 (a single SEND)", small_send);
  }
  if (max_send_wr == 0 || receive_slots == 0) {
    throw Error("virtuoso: max_send_wr and receive_slots must be at least 1");
  }
  if (probe && probe_bytes < 512 * 1024) {
    throw Error("virtuoso: probe_bytes {} is below the paper's 512 KB per path", probe_bytes);
  }
  if (pace_paths && !probe) {
    throw Error("virtuoso: pace_paths needs probe (the paths are paced at their measured rates)");
  }
  if (control_attempts == 0 || control_interval <= Time::zero()) {
    throw Error("virtuoso: control_interval and control_attempts must be positive");
  }
  if (chunk_search.enabled) {
    if (chunk_search.initial < block || chunk_search.linear_step < block) {
      throw Error(
          "virtuoso: the chunk search's initial size and linear step must be at least "
          "one block ({} bytes)",
          block);
    }
    if (chunk_search.initial > max_wr_bytes) {
      throw Error("virtuoso: the chunk search starts above max_wr_bytes");
    }
  }
}

}  // namespace bifrost::transport::virtuoso
