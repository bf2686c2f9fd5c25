#pragma once
// A scripted RoCEv2 exchange between two hosts that uses every opcode the codec supports:
// RC SEND / WRITE in all segmentations and with immediate data, RDMA READ with single and
// multi-packet responses, ACK, RNR NAK, NAK (PSN sequence error, remote access error), UC SEND /
// WRITE, and UD SEND with and without immediate data, with a PSN wrap from 0xFFFFFF to 0.
// bifrost-wire-demo prints it; the wire tests and the fuzz corpus reuse the same frames.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bifrost/wire/ethernet.h"
#include "bifrost/wire/headers.h"
#include "bifrost/wire/ip_udp.h"

namespace bifrost::wire {

struct DemoFrame {
  uint64_t time_ns = 0;   // since the Unix epoch
  std::string_view step;  // the scenario step this frame belongs to, e.g. "RNR NAK and retry"
  EthernetHeader eth;
  IpUdpInfo ip;
  RoceHeaders roce;  // bth.pad_count matches the payload
  std::vector<std::byte> payload;
};

// Host A is 10.0.0.1, host B is 10.0.0.2; frames are in capture order.
std::vector<DemoFrame> demo_exchange();

// Ethernet/IPv4/UDP/RoCE bytes of one frame, UDP checksum included. Throws bifrost::Error if
// the frame cannot be encoded.
std::vector<std::byte> encode_demo_frame(const DemoFrame& frame);

// Writes the frames to a nanosecond pcap; throws bifrost::Error on I/O failure.
void write_demo_pcap(const std::string& path, const std::vector<DemoFrame>& frames);

}  // namespace bifrost::wire
