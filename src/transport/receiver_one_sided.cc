// The target's side of the peer's one-sided operations in software_uc mode: a notice opens a
// record of the WRITE (checked against our memory's keys, as the NIC checks every chunk) so
// its pieces can be placed and late ones refused; a read request is checked and answered by
// a one-sided WRITE of ours (docs/transport.md "One-sided WRITE and READ").
#include <array>

#include "bifrost/transport/endpoint.h"
#include "receiver.h"
#include "sender.h"

namespace bifrost::transport {

namespace {

std::optional<OneSidedTrailer> read_trailer(const rnic::HostMemory& memory, uint64_t addr,
                                            uint32_t length) {
  if (length < kOneSidedTrailerSize) return std::nullopt;
  std::array<std::byte, kOneSidedTrailerSize> bytes{};
  memory.copy_out(addr, bytes);
  const auto trailer = decode_one_sided_trailer(bytes);
  if (!trailer) return std::nullopt;
  return trailer.value;
}

}  // namespace

const rnic::MemoryRegion* Receiver::granted_region(uint32_t rkey, uint64_t addr, uint64_t length,
                                                   rnic::Access wanted) const {
  const rnic::MemoryRegistry& registry = endpoint_.device().memory();
  if (registry.check_remote(endpoint_.pd(), rkey, addr, length, wanted) != rnic::AccessResult::ok) {
    return nullptr;
  }
  return registry.find_by_rkey(rkey);
}

void Receiver::on_notice(const SendHeader& h, uint64_t seq, uint64_t trailer_addr,
                         uint32_t length) {
  const auto trailer = read_trailer(*slot_memory_, trailer_addr, length);
  if (!trailer || h.argument == 0 || h.argument > config_.max_message_size() ||
      writes_done_.contains(seq) || writes_.contains(seq)) {
    ++stats_.malformed;
    return;
  }
  const rnic::MemoryRegion* region =
      granted_region(trailer->rkey, h.address, h.argument, rnic::Access::remote_write);
  if (region == nullptr) {
    // The NIC drops the chunks for the same reason; done, so pieces are dropped too.
    ++stats_.one_sided_refused;
    writes_done_.insert(seq);
    sender_.send_reply(SendHeader{.type = SendType::write_refused, .message_id = h.message_id});
    return;
  }
  InWrite& w = writes_[seq];
  w.addr = h.address;
  w.length = h.argument;
  w.granted = true;
  w.one_sided = true;
  w.memory = region->memory;
  w.have.assign((w.length + config_.unit_size - 1) / config_.unit_size, false);
}

void Receiver::on_read_request(const SendHeader& h, uint64_t trailer_addr, uint32_t length) {
  const auto trailer = read_trailer(*slot_memory_, trailer_addr, length);
  if (!trailer || h.argument == 0 || h.argument > config_.max_message_size()) {
    ++stats_.malformed;
    return;
  }
  const rnic::MemoryRegion* region =
      granted_region(trailer->rkey, h.address, h.argument, rnic::Access::remote_read);
  if (region == nullptr || region->memory == nullptr) {
    ++stats_.one_sided_refused;
    sender_.send_reply(
        SendHeader{.type = SendType::read_done,
                   .message_id = h.message_id,
                   .argument = static_cast<uint32_t>(ReadStatus::remote_access_error)});
    return;
  }
  ++stats_.reads_served;
  sender_.serve_read(h.message_id,
                     MessageBuffer{.region = region, .addr = h.address, .length = h.argument},
                     RemoteAddress{.addr = trailer->reply_address, .rkey = trailer->reply_rkey});
}

}  // namespace bifrost::transport
