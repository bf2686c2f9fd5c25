#pragma once
// The application's own bytes as the soft RNIC's host memory: a registered buffer at `bytes`
// that the NIC addresses as [iova, iova + length) (iova = the buffer's address, unless the
// application registered it with ibv_reg_mr_iova). Nothing is copied or owned.
#include <cstddef>
#include <cstdint>

#include "bifrost/rnic/host_memory.h"

namespace bifrost::verbs {

class ApplicationMemory final : public rnic::HostMemory {
 public:
  ApplicationMemory(std::byte* bytes, uint64_t iova, uint64_t length)
      : HostMemory(iova, length), bytes_(bytes) {}

  void read(uint64_t va, uint32_t length, world::Payload& out) const override;
  void borrow(uint64_t va, uint32_t length, world::Payload& out) const override;
  void write(uint64_t va, const world::Payload& in) override;
  void copy_out(uint64_t va, std::span<std::byte> out) const override;
  rnic::ContentRun content_at(uint64_t va, uint64_t max_length) const override;

 private:
  std::byte* at(uint64_t va) const { return bytes_ + (va - base()); }
  std::byte* bytes_;
};

}  // namespace bifrost::verbs
