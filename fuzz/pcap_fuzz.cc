// Fuzz target: arbitrary bytes as a pcap file. The reader may only answer with records that lie
// inside the input or with bifrost::Error; every record is then decoded as a frame.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/wire/frame.h"
#include "bifrost/wire/pcap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>(data[i]);
  try {
    bifrost::wire::PcapReader reader(std::move(bytes), "fuzz-input");
    std::size_t consumed = bifrost::wire::kPcapFileHeaderSize;
    while (const auto record = reader.next()) {
      consumed += bifrost::wire::kPcapRecordHeaderSize + record->data.size();
      if (consumed > size) std::abort();
      (void)bifrost::wire::decode_ethernet_frame(record->data);
    }
  } catch (const bifrost::Error&) {
    // Malformed files are expected; the message is the product.
  }
  return 0;
}
