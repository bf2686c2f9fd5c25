#pragma once
// A flow to simulate: `size` bytes from host `src` to host `dst`, starting at `start`. Hosts are
// indices into the topology's host list. Workload generators and flow-file readers produce
// lists of these; the simulator turns each into a transfer.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::workload {

// Priority classes are the eight 802.1p / PFC classes.
inline constexpr uint8_t kPriorityClasses = 8;

// Who moves the bytes: the source WRITEs them to the destination (every transport), or the
// destination READs them from the source (RoGUE RC, which has a READ window of its own).
enum class FlowOp : uint8_t { write, read };

struct Flow {
  uint64_t id = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  Bytes size;
  Time start;
  uint8_t priority = 0;  // 0 .. kPriorityClasses - 1
  std::string tag;       // which workload made it; may be empty
  FlowOp op = FlowOp::write;

  bool operator==(const Flow&) const = default;
};

// Merges flow lists into one ordered by start time; equal starts keep list order, then order
// within a list. Ids are renumbered 0, 1, 2, ... in the merged order so they are unique.
std::vector<Flow> merge_flows(std::vector<std::vector<Flow>> lists);

// Renumbers ids 0, 1, 2, ... in the list's order.
void renumber(std::vector<Flow>& flows);

}  // namespace bifrost::sim::workload
