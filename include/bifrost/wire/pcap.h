#pragma once
// Classic pcap files with nanosecond timestamps (magic 0xA1B23C4D) and Ethernet link type, the
// format Wireshark and tshark read without options. The reader also accepts microsecond files
// and either byte order, and treats every byte as untrusted.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bifrost::wire {

inline constexpr uint32_t kPcapMagicNanoseconds = 0xA1B23C4D;
inline constexpr uint32_t kPcapMagicMicroseconds = 0xA1B2C3D4;
inline constexpr uint32_t kLinktypeEthernet = 1;
inline constexpr std::size_t kPcapFileHeaderSize = 24;
inline constexpr std::size_t kPcapRecordHeaderSize = 16;
// Records larger than this are treated as corruption (Wireshark's own limit is 256 KiB).
inline constexpr uint32_t kPcapMaxRecordSize = 256 * 1024;

class PcapWriter {
 public:
  // Creates or truncates `path`; throws bifrost::Error naming the file if it cannot.
  explicit PcapWriter(const std::string& path, uint32_t linktype = kLinktypeEthernet);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  // Appends one record stamped `time_ns` nanoseconds after the Unix epoch.
  void write(uint64_t time_ns, std::span<const std::byte> frame);
  // Flushes and closes; throws bifrost::Error on a write failure. The destructor closes too but
  // cannot report errors.
  void close();

 private:
  void put(const void* data, std::size_t size);

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t records_ = 0;
};

struct PcapRecord {
  uint64_t index = 0;    // 0-based position in the file
  uint64_t time_ns = 0;  // since the Unix epoch
  uint32_t original_length = 0;
  std::span<const std::byte> data;  // valid until the reader is destroyed
};

class PcapReader {
 public:
  // Reads the whole file; throws bifrost::Error naming the file if it cannot be read or its
  // header is not a pcap header.
  explicit PcapReader(const std::string& path);
  // Parses bytes already in memory; `name` stands for the file in error messages.
  PcapReader(std::vector<std::byte> bytes, std::string name);

  uint32_t linktype() const { return linktype_; }
  uint32_t snaplen() const { return snaplen_; }
  bool nanosecond() const { return nanosecond_; }

  // The next record, or nullopt after the last one. Throws bifrost::Error naming the file, the
  // record and the byte offset when a record is malformed.
  std::optional<PcapRecord> next();

 private:
  void parse_header();
  uint32_t u32(std::size_t offset) const;
  uint16_t u16(std::size_t offset) const;

  std::string name_;
  std::vector<std::byte> bytes_;
  std::size_t offset_ = 0;
  uint64_t index_ = 0;
  bool swapped_ = false;
  bool nanosecond_ = true;
  uint32_t snaplen_ = 0;
  uint32_t linktype_ = 0;
};

}  // namespace bifrost::wire
