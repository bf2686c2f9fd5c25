#include <array>
#include <cerrno>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/wire/pcap.h"
#include "bifrost/wire/byte_order.h"

namespace bifrost::wire {

using detail::store_le16;
using detail::store_le32;

PcapWriter::PcapWriter(const std::string& path, uint32_t linktype) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) {
    throw Error("cannot create pcap file '{}': {}", path, std::strerror(errno));
  }
  // Written little-endian; readers detect the order from the magic number.
  std::array<std::byte, kPcapFileHeaderSize> header{};
  store_le32(header.data(), kPcapMagicNanoseconds);
  store_le16(header.data() + 4, 2);  // version 2.4
  store_le16(header.data() + 6, 4);
  store_le32(header.data() + 8, 0);   // thiszone: timestamps are UTC
  store_le32(header.data() + 12, 0);  // sigfigs
  store_le32(header.data() + 16, kPcapMaxRecordSize);
  store_le32(header.data() + 20, linktype);
  put(header.data(), header.size());
}

PcapWriter::~PcapWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void PcapWriter::write(uint64_t time_ns, std::span<const std::byte> frame) {
  if (file_ == nullptr) throw Error("pcap file '{}' is already closed", path_);
  if (frame.size() > kPcapMaxRecordSize) {
    throw Error("pcap file '{}': record {} has {} bytes, more than the {} a record may hold", path_,
                records_, frame.size(), kPcapMaxRecordSize);
  }
  std::array<std::byte, kPcapRecordHeaderSize> header{};
  store_le32(header.data(), static_cast<uint32_t>(time_ns / 1'000'000'000));
  store_le32(header.data() + 4, static_cast<uint32_t>(time_ns % 1'000'000'000));
  store_le32(header.data() + 8, static_cast<uint32_t>(frame.size()));
  store_le32(header.data() + 12, static_cast<uint32_t>(frame.size()));
  put(header.data(), header.size());
  put(frame.data(), frame.size());
  ++records_;
}

void PcapWriter::close() {
  if (file_ == nullptr) return;
  const bool failed = std::fflush(file_) != 0 || std::ferror(file_) != 0;
  const int err = errno;
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed || close_failed) {
    throw Error("cannot write pcap file '{}': {}", path_, std::strerror(err));
  }
}

void PcapWriter::put(const void* data, std::size_t size) {
  if (size != 0 && std::fwrite(data, 1, size, file_) != size) {
    throw Error("cannot write pcap file '{}': {}", path_, std::strerror(errno));
  }
}

}  // namespace bifrost::wire
