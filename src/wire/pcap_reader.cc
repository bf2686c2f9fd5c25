#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "bifrost/core/error.h"
#include "bifrost/wire/pcap.h"
#include "bifrost/wire/byte_order.h"

namespace bifrost::wire {
namespace {

constexpr uint32_t byteswap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
}

constexpr uint32_t kPcapngMagic = 0x0A0D0D0A;

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open pcap file '{}': {}", path, std::strerror(errno));
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error("cannot read pcap file '{}': {}", path, std::strerror(errno));
  std::vector<std::byte> bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

}  // namespace

PcapReader::PcapReader(const std::string& path) : name_(path), bytes_(read_file(path)) {
  parse_header();
}

PcapReader::PcapReader(std::vector<std::byte> bytes, std::string name)
    : name_(std::move(name)), bytes_(std::move(bytes)) {
  parse_header();
}

uint32_t PcapReader::u32(std::size_t offset) const {
  const uint32_t v = detail::load_le32(bytes_.data() + offset);
  return swapped_ ? byteswap32(v) : v;
}

uint16_t PcapReader::u16(std::size_t offset) const {
  const uint16_t v = detail::load_le16(bytes_.data() + offset);
  return swapped_ ? static_cast<uint16_t>((v >> 8) | (v << 8)) : v;
}

void PcapReader::parse_header() {
  if (bytes_.size() < kPcapFileHeaderSize) {
    throw Error("'{}' is not a pcap file: it has {} bytes, fewer than the {}-byte file header",
                name_, bytes_.size(), kPcapFileHeaderSize);
  }
  const uint32_t magic = detail::load_le32(bytes_.data());
  if (magic == kPcapMagicNanoseconds || magic == kPcapMagicMicroseconds) {
    swapped_ = false;
  } else if (byteswap32(magic) == kPcapMagicNanoseconds ||
             byteswap32(magic) == kPcapMagicMicroseconds) {
    swapped_ = true;
  } else if (magic == kPcapngMagic) {
    throw Error("'{}' is a pcapng file; convert it with 'editcap -F pcap' first", name_);
  } else {
    throw Error("'{}' is not a pcap file: magic number 0x{:08X} is neither 0x{:08X} nor 0x{:08X}",
                name_, magic, kPcapMagicMicroseconds, kPcapMagicNanoseconds);
  }
  nanosecond_ = (swapped_ ? byteswap32(magic) : magic) == kPcapMagicNanoseconds;
  const uint16_t major = u16(4);
  const uint16_t minor = u16(6);
  if (major != 2) {
    throw Error("'{}': unsupported pcap version {}.{} (expected 2.4)", name_, major, minor);
  }
  snaplen_ = u32(16);
  linktype_ = u32(20) & 0x0FFFFFFF;  // the top bits may carry FCS information
  offset_ = kPcapFileHeaderSize;
}

std::optional<PcapRecord> PcapReader::next() {
  const std::size_t remaining = bytes_.size() - offset_;
  if (remaining == 0) return std::nullopt;
  if (remaining < kPcapRecordHeaderSize) {
    throw Error("'{}': record {} at byte {}: truncated record header ({} of {} bytes)", name_,
                index_, offset_, remaining, kPcapRecordHeaderSize);
  }
  const uint32_t seconds = u32(offset_);
  const uint32_t fraction = u32(offset_ + 4);
  const uint32_t captured = u32(offset_ + 8);
  const uint32_t original = u32(offset_ + 12);
  const uint32_t fraction_limit = nanosecond_ ? 1'000'000'000 : 1'000'000;
  if (fraction >= fraction_limit) {
    throw Error("'{}': record {} at byte {}: timestamp fraction {} is not below {}", name_, index_,
                offset_, fraction, fraction_limit);
  }
  if (captured > kPcapMaxRecordSize) {
    throw Error("'{}': record {} at byte {}: captured length {} exceeds the {}-byte limit", name_,
                index_, offset_, captured, kPcapMaxRecordSize);
  }
  if (captured > original) {
    throw Error("'{}': record {} at byte {}: captured length {} exceeds original length {}", name_,
                index_, offset_, captured, original);
  }
  if (remaining - kPcapRecordHeaderSize < captured) {
    throw Error("'{}': record {} at byte {}: truncated record data ({} of {} bytes)", name_, index_,
                offset_, remaining - kPcapRecordHeaderSize, captured);
  }
  PcapRecord record;
  record.index = index_++;
  record.time_ns =
      uint64_t{seconds} * 1'000'000'000 + uint64_t{fraction} * (nanosecond_ ? 1 : 1000);
  record.original_length = original;
  record.data =
      std::span<const std::byte>(bytes_).subspan(offset_ + kPcapRecordHeaderSize, captured);
  offset_ += kPcapRecordHeaderSize + captured;
  return record;
}

}  // namespace bifrost::wire
