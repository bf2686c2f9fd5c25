#include "bifrost/wire/pcap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

using test::bytes_of;
using test::hex_bytes;

// Expects `read_all` to throw bifrost::Error whose message contains every one of `parts`.
template <typename F>
void expect_error(F&& read_all, const std::vector<std::string>& parts) {
  try {
    read_all();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

std::size_t count_records(PcapReader& reader) {
  std::size_t n = 0;
  while (reader.next()) ++n;
  return n;
}

std::vector<std::byte> two_record_file() {
  return hex_bytes(
      "4d 3c b2 a1 02 00 04 00 00 00 00 00 00 00 00 00 00 00 04 00 01 00 00 00"
      "01 00 00 00 ff c9 9a 3b 03 00 00 00 03 00 00 00 aa bb cc"  // 1.999999999 s
      "02 00 00 00 00 00 00 00 02 00 00 00 40 00 00 00 dd ee");   // 2 s, truncated capture
}

TEST(WirePcap, WriterAndReaderRoundTrip) {
  test::ScratchDir dir;
  const std::string path = dir.file("round.pcap");
  {
    PcapWriter writer(path);
    writer.write(1'704'067'200'123'456'789ULL, bytes_of({1, 2, 3}));
    writer.write(1'704'067'201'000'000'000ULL, {});
    writer.write(1'704'067'201'000'000'001ULL, std::vector<std::byte>(1500, std::byte{7}));
    writer.close();
  }
  const auto bytes = test::read_bytes(path);
  ASSERT_GE(bytes.size(), 24u);
  EXPECT_EQ(std::vector<std::byte>(bytes.begin(), bytes.begin() + 4),
            bytes_of({0x4d, 0x3c, 0xb2, 0xa1}));

  PcapReader reader(path);
  EXPECT_TRUE(reader.nanosecond());
  EXPECT_EQ(reader.linktype(), kLinktypeEthernet);
  auto r = reader.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->index, 0u);
  EXPECT_EQ(r->time_ns, 1'704'067'200'123'456'789ULL);
  EXPECT_EQ(std::vector<std::byte>(r->data.begin(), r->data.end()), bytes_of({1, 2, 3}));
  r = reader.next();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->data.empty());
  r = reader.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->index, 2u);
  EXPECT_EQ(r->data.size(), 1500u);
  EXPECT_EQ(r->original_length, 1500u);
  EXPECT_FALSE(reader.next());
  EXPECT_FALSE(reader.next());
}

TEST(WirePcap, ReadsFromMemoryWithNanosecondTimes) {
  PcapReader reader(two_record_file(), "memory");
  auto r = reader.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->time_ns, 1'999'999'999u);
  EXPECT_EQ(r->data.size(), 3u);
  r = reader.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->time_ns, 2'000'000'000u);
  EXPECT_EQ(r->original_length, 64u);  // a snapped record keeps its original length
  EXPECT_FALSE(reader.next());
}

TEST(WirePcap, ReadsBigEndianMicrosecondFiles) {
  const auto bytes = hex_bytes(
      "a1 b2 c3 d4 00 02 00 04 00 00 00 00 00 00 00 00 00 00 ff ff 00 00 00 01"
      "00 00 00 05 00 0f 42 3f 00 00 00 01 00 00 00 01 99");  // 5.999999 s
  PcapReader reader(bytes, "big-endian");
  EXPECT_FALSE(reader.nanosecond());
  EXPECT_EQ(reader.snaplen(), 0xFFFFu);
  EXPECT_EQ(reader.linktype(), kLinktypeEthernet);
  const auto r = reader.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->time_ns, 5'999'999'000u);
  EXPECT_EQ(r->data[0], std::byte{0x99});
}

TEST(WirePcap, BadFilesGiveClearErrors) {
  expect_error([] { PcapReader("/nonexistent/dir/file.pcap"); },
               {"cannot open", "/nonexistent/dir/file.pcap"});
  expect_error([] { PcapReader({}, "empty.pcap"); }, {"empty.pcap", "not a pcap file", "0 bytes"});
  expect_error([] { PcapReader(bytes_of({0xd4, 0xc3}), "short.pcap"); }, {"short.pcap", "2 bytes"});
  auto garbage = two_record_file();
  garbage[0] = std::byte{0x00};
  expect_error([&] { PcapReader(garbage, "garbage.pcap"); },
               {"garbage.pcap", "magic number", "0xA1B23C00"});
  auto pcapng = two_record_file();
  pcapng[0] = std::byte{0x0A};
  pcapng[1] = std::byte{0x0D};
  pcapng[2] = std::byte{0x0D};
  pcapng[3] = std::byte{0x0A};
  expect_error([&] { PcapReader(pcapng, "capture.pcapng"); }, {"capture.pcapng", "pcapng"});
  auto version = two_record_file();
  version[4] = std::byte{0x03};
  expect_error([&] { PcapReader(version, "v3.pcap"); }, {"v3.pcap", "version 3.4"});
}

TEST(WirePcap, MalformedRecordsNameTheRecord) {
  const auto file = two_record_file();
  // Cut inside the second record's header and inside its data.
  auto header_cut = std::vector<std::byte>(file.begin(), file.begin() + 24 + 19 + 10);
  expect_error(
      [&] {
        PcapReader reader(header_cut, "cut.pcap");
        count_records(reader);
      },
      {"cut.pcap", "record 1", "byte 43", "truncated record header"});
  auto data_cut = std::vector<std::byte>(file.begin(), file.end() - 1);
  expect_error(
      [&] {
        PcapReader reader(data_cut, "cut2.pcap");
        count_records(reader);
      },
      {"cut2.pcap", "record 1", "truncated record data (1 of 2 bytes)"});

  auto huge = file;
  huge[24 + 8 + 3] = std::byte{0x7F};  // captured length 0x7F000003
  expect_error(
      [&] {
        PcapReader reader(huge, "huge.pcap");
        count_records(reader);
      },
      {"huge.pcap", "record 0", "exceeds the 262144-byte limit"});

  auto longer = file;
  longer[24 + 12] = std::byte{0x02};  // original length 2 < captured 3
  expect_error(
      [&] {
        PcapReader reader(longer, "orig.pcap");
        count_records(reader);
      },
      {"orig.pcap", "record 0", "exceeds original length 2"});

  auto fraction = file;
  fraction[24 + 7] = std::byte{0x3C};  // 0x3C9AC9FF ns >= 1e9
  expect_error(
      [&] {
        PcapReader reader(fraction, "time.pcap");
        count_records(reader);
      },
      {"time.pcap", "record 0", "timestamp fraction"});
}

TEST(WirePcap, WriterReportsUnwritablePaths) {
  expect_error([] { PcapWriter writer("/nonexistent/dir/out.pcap"); },
               {"cannot create", "/nonexistent/dir/out.pcap"});
}

}  // namespace
}  // namespace bifrost::wire
