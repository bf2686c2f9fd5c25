#include "application_memory.h"

#include <cstring>

namespace bifrost::verbs {

void ApplicationMemory::read(uint64_t va, uint32_t length, world::Payload& out) const {
  if (!start_read(va, length, out)) return;
  out.bytes.assign(at(va), at(va) + length);
}

void ApplicationMemory::borrow(uint64_t va, uint32_t length, world::Payload& out) const {
  if (!start_read(va, length, out)) return;
  out.bytes.clear();
  out.borrowed = std::span<const std::byte>(at(va), length);
}

void ApplicationMemory::write(uint64_t va, const world::Payload& in) {
  check_payload(in);
  if (in.length == 0) return;
  check_range(va, in.length);
  rnic::materialize(in, std::span<std::byte>(at(va), in.length));
}

void ApplicationMemory::copy_out(uint64_t va, std::span<std::byte> out) const {
  check_range(va, out.size());
  if (!out.empty()) std::memcpy(out.data(), at(va), out.size());
}

rnic::ContentRun ApplicationMemory::content_at(uint64_t va, uint64_t max_length) const {
  check_range(va, max_length);
  if (max_length == 0) return rnic::ContentRun{};
  return rnic::ContentRun{.length = max_length,
                          .is_pattern = false,
                          .bytes = std::span<const std::byte>(at(va), max_length)};
}

}  // namespace bifrost::verbs
