#pragma once
// What the device promises applications (ibv_query_device, QP capabilities).
#include <cstdint>

namespace bifrost::verbs {

// Not Mellanox (0x02c9) nor Amazon (0x1d0f): perftest then takes its plain ibv_post_send path.
inline constexpr uint32_t kVendorId = 0xB1F;
inline constexpr uint32_t kVendorPartId = 1;
// Inline sends are copied into a per-QP ring of this many bytes per slot at most.
inline constexpr uint32_t kMaxInlineData = 512;

}  // namespace bifrost::verbs
