#include "bifrost/rnic/segmenter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bifrost/wire/opcode.h"
#include "support/error_message.h"

namespace bifrost::rnic {
namespace {

using wire::Opcode;

struct Packet {
  wire::RoceHeaders headers;
  uint64_t offset;
  uint32_t length;
};

std::vector<Packet> run(QpType type, const SendWqe& wqe, uint32_t mtu, uint32_t first_psn,
                        uint32_t dest_qp = 0x123456) {
  std::vector<Packet> packets;
  const uint32_t n = segment(type, wqe, mtu, first_psn, dest_qp,
                             [&](const wire::RoceHeaders& h, uint64_t offset, uint32_t length) {
                               packets.push_back({h, offset, length});
                             });
  EXPECT_EQ(n, packets.size());
  return packets;
}

bool is_write(WrOpcode op) {
  return op == WrOpcode::rdma_write || op == WrOpcode::rdma_write_with_imm;
}
bool has_imm(WrOpcode op) {
  return op == WrOpcode::send_with_imm || op == WrOpcode::rdma_write_with_imm;
}

// The opcodes a message of n packets must carry, written out from table 38.
std::vector<Opcode> expected_opcodes(QpType type, WrOpcode op, uint32_t n) {
  const bool rc = type == QpType::rc;
  if (op == WrOpcode::rdma_read) return {Opcode::kRcReadRequest};
  if (type == QpType::ud) {
    return {has_imm(op) ? Opcode::kUdSendOnlyImm : Opcode::kUdSendOnly};
  }
  Opcode first, middle, last, last_imm, only, only_imm;
  if (is_write(op)) {
    first = rc ? Opcode::kRcWriteFirst : Opcode::kUcWriteFirst;
    middle = rc ? Opcode::kRcWriteMiddle : Opcode::kUcWriteMiddle;
    last = rc ? Opcode::kRcWriteLast : Opcode::kUcWriteLast;
    last_imm = rc ? Opcode::kRcWriteLastImm : Opcode::kUcWriteLastImm;
    only = rc ? Opcode::kRcWriteOnly : Opcode::kUcWriteOnly;
    only_imm = rc ? Opcode::kRcWriteOnlyImm : Opcode::kUcWriteOnlyImm;
  } else {
    first = rc ? Opcode::kRcSendFirst : Opcode::kUcSendFirst;
    middle = rc ? Opcode::kRcSendMiddle : Opcode::kUcSendMiddle;
    last = rc ? Opcode::kRcSendLast : Opcode::kUcSendLast;
    last_imm = rc ? Opcode::kRcSendLastImm : Opcode::kUcSendLastImm;
    only = rc ? Opcode::kRcSendOnly : Opcode::kUcSendOnly;
    only_imm = rc ? Opcode::kRcSendOnlyImm : Opcode::kUcSendOnlyImm;
  }
  const bool imm = has_imm(op);
  if (n == 1) return {imm ? only_imm : only};
  std::vector<Opcode> ops{first};
  for (uint32_t i = 1; i + 1 < n; ++i) ops.push_back(middle);
  ops.push_back(imm ? last_imm : last);
  return ops;
}

bool legal(QpType type, WrOpcode op, uint64_t length, uint32_t mtu) {
  if (op == WrOpcode::rdma_read) return type == QpType::rc;
  if (is_write(op)) return type != QpType::ud;
  return type != QpType::ud || length <= mtu;
}

void check_message(QpType type, WrOpcode op, uint64_t length, uint32_t mtu, uint32_t first_psn) {
  SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + " length " +
               std::to_string(length) + " mtu " + std::to_string(mtu));
  const SendWqe wqe{op, length, 0x1000'0000'0000, 0xABCD, 0xFEEDBEEF, true};
  if (!legal(type, op, length, mtu)) {
    EXPECT_NE(testing::error_of([&] { run(type, wqe, mtu, first_psn); }), "no error");
    return;
  }
  const auto packets = run(type, wqe, mtu, first_psn);
  const bool read = op == WrOpcode::rdma_read;
  const uint32_t n = read ? 1 : (length == 0 ? 1 : static_cast<uint32_t>((length + mtu - 1) / mtu));
  EXPECT_EQ(request_packet_count(wqe, mtu), n);
  const auto ops = expected_opcodes(type, op, n);
  ASSERT_EQ(packets.size(), ops.size());
  uint64_t next_offset = 0;
  for (size_t i = 0; i < packets.size(); ++i) {
    SCOPED_TRACE("packet " + std::to_string(i));
    const auto& h = packets[i].headers;
    const bool first = i == 0;
    const bool last = i + 1 == packets.size();
    const auto chain = wire::header_chain(h.bth.opcode);
    EXPECT_EQ(h.bth.opcode, ops[i]);
    EXPECT_EQ(h.bth.psn, (first_psn + i) & wire::kPsnMask);
    EXPECT_EQ(h.bth.dest_qp, 0x123456u);
    // Headers present exactly where the IBTA header chain of the opcode says.
    const bool want_reth = first && (read || is_write(op));
    EXPECT_EQ(chain.reth, want_reth);
    EXPECT_EQ(chain.immdt, last && has_imm(op));
    EXPECT_EQ(chain.deth, type == QpType::ud);
    EXPECT_FALSE(chain.aeth);
    if (want_reth) {
      EXPECT_EQ(h.reth.virtual_address, 0x1000'0000'0000u);
      EXPECT_EQ(h.reth.rkey, 0xABCDu);
      EXPECT_EQ(h.reth.dma_length, length);
    } else {
      EXPECT_EQ(h.reth, wire::Reth{});
    }
    EXPECT_EQ(h.immediate, chain.immdt ? 0xFEEDBEEFu : 0u);
    EXPECT_EQ(h.bth.solicited, last);
    EXPECT_EQ(h.bth.ack_request, last && type == QpType::rc);
    // Payload: consecutive, full MTUs except the last; none on a READ request.
    if (read) {
      EXPECT_EQ(packets[i].length, 0u);
    } else {
      EXPECT_TRUE(chain.payload);
      EXPECT_EQ(packets[i].offset, next_offset);
      if (!last) {
        EXPECT_EQ(packets[i].length, mtu);
      }
      EXPECT_LE(packets[i].length, mtu);
      next_offset += packets[i].length;
    }
    EXPECT_EQ((packets[i].length + h.bth.pad_count) % 4, 0u);
    EXPECT_LT(h.bth.pad_count, 4);
  }
  if (!read) {
    EXPECT_EQ(next_offset, length);
  }
}

TEST(Segmenter, EveryQpTypeOpcodeAndLength) {
  for (const uint32_t mtu : {256u, 1024u, 4096u}) {
    for (const QpType type : {QpType::rc, QpType::uc, QpType::ud}) {
      for (const WrOpcode op : {WrOpcode::send, WrOpcode::send_with_imm, WrOpcode::rdma_write,
                                WrOpcode::rdma_write_with_imm, WrOpcode::rdma_read}) {
        for (const uint64_t length :
             {uint64_t{0}, uint64_t{1}, uint64_t{mtu} - 1, uint64_t{mtu}, uint64_t{mtu} + 1,
              3 * uint64_t{mtu}, 3 * uint64_t{mtu} + 7}) {
          check_message(type, op, length, mtu, 0x00ABCDEF);
        }
      }
    }
  }
}

TEST(Segmenter, UnsolicitedHasNoSe) {
  const SendWqe wqe{WrOpcode::send, 600, 0, 0, 0, false};
  for (const auto& p : run(QpType::rc, wqe, 256, 7)) EXPECT_FALSE(p.headers.bth.solicited);
}

TEST(Segmenter, ThreeMtuPlusSevenOnRcWrite) {
  const SendWqe wqe{WrOpcode::rdma_write, 3 * 1024 + 7, 0x5000, 9, 0, false};
  const auto p = run(QpType::rc, wqe, 1024, 100);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].headers.bth.opcode, Opcode::kRcWriteFirst);
  EXPECT_EQ(p[1].headers.bth.opcode, Opcode::kRcWriteMiddle);
  EXPECT_EQ(p[2].headers.bth.opcode, Opcode::kRcWriteMiddle);
  EXPECT_EQ(p[3].headers.bth.opcode, Opcode::kRcWriteLast);
  EXPECT_EQ(p[3].offset, 3072u);
  EXPECT_EQ(p[3].length, 7u);
  EXPECT_EQ(p[3].headers.bth.pad_count, 1);
  EXPECT_TRUE(p[3].headers.bth.ack_request);
  EXPECT_FALSE(p[2].headers.bth.ack_request);
}

TEST(Segmenter, PsnWrapsModulo2To24) {
  const SendWqe wqe{WrOpcode::send, 4 * 256, 0, 0, 0, false};
  const auto p = run(QpType::uc, wqe, 256, 0xFFFFFE);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].headers.bth.psn, 0xFFFFFEu);
  EXPECT_EQ(p[1].headers.bth.psn, 0xFFFFFFu);
  EXPECT_EQ(p[2].headers.bth.psn, 0u);
  EXPECT_EQ(p[3].headers.bth.psn, 1u);
}

TEST(Segmenter, PacketCounts) {
  EXPECT_EQ(packet_count(0, 256), 1u);
  EXPECT_EQ(packet_count(1, 256), 1u);
  EXPECT_EQ(packet_count(256, 256), 1u);
  EXPECT_EQ(packet_count(257, 256), 2u);
  EXPECT_EQ(packet_count(kMaxMessageLength, 4096), 524288u);
  EXPECT_EQ(read_response_count(0, 1024), 1u);
  EXPECT_EQ(read_response_count(3 * 1024 + 7, 1024), 4u);
  EXPECT_EQ(request_packet_count({WrOpcode::rdma_read, 1 << 20, 0, 0, 0, false}, 1024), 1u);
  EXPECT_EQ(request_packet_count({WrOpcode::rdma_write, 1 << 20, 0, 0, 0, false}, 1024), 1024u);
}

TEST(Segmenter, WritePlacement) {
  EXPECT_EQ(write_placement(10, 10, 0x8000, 1024), 0x8000u);
  EXPECT_EQ(write_placement(12, 10, 0x8000, 1024), 0x8000u + 2048);
  // Across the PSN wrap: first packet 0xFFFFFE, this one 1 is the fourth.
  EXPECT_EQ(write_placement(1, 0xFFFFFE, 0x8000, 256), 0x8000u + 3 * 256);
  EXPECT_EQ(write_placement(0, 0xFFFFFF, 0x8000, 4096), 0x8000u + 4096);
  // Agrees with the segmenter's offsets for every packet of a wrapping message.
  const SendWqe wqe{WrOpcode::rdma_write, 5 * 512 + 3, 0xC000'0000, 1, 0, false};
  for (const auto& p : run(QpType::rc, wqe, 512, 0xFFFFFD)) {
    EXPECT_EQ(write_placement(p.headers.bth.psn, 0xFFFFFD, 0xC000'0000, 512),
              0xC000'0000 + p.offset);
  }
  EXPECT_EQ(testing::error_of([] { write_placement(5, 10, 0, 1024); }),
            "PSN 0x000005 precedes the first PSN 0x00000a of its message");
  EXPECT_EQ(testing::error_of([] { write_placement(5, 5, 0, 1000); }),
            "path MTU 1000 is not supported: use 256, 512, 1024, 2048 or 4096");
}

TEST(Segmenter, Errors) {
  const auto noop = [](const wire::RoceHeaders&, uint64_t, uint32_t) {};
  const auto seg = [&](QpType type, WrOpcode op, uint64_t length, uint32_t mtu) {
    return testing::error_of([&] {
      segment(type, SendWqe{op, length, 0, 0, 0, false}, mtu, 0, 1, noop);
    });
  };
  for (const uint32_t mtu : {0u, 255u, 1000u, 1500u, 8192u}) {
    EXPECT_EQ(
        seg(QpType::rc, WrOpcode::send, 0, mtu),
        "path MTU " + std::to_string(mtu) + " is not supported: use 256, 512, 1024, 2048 or 4096");
  }
  EXPECT_EQ(testing::error_of([] { packet_count(1, 9000); }),
            "path MTU 9000 is not supported: use 256, 512, 1024, 2048 or 4096");
  EXPECT_EQ(seg(QpType::rc, WrOpcode::rdma_write, kMaxMessageLength, 4096), "no error");
  EXPECT_EQ(seg(QpType::rc, WrOpcode::rdma_write, kMaxMessageLength + 1, 4096),
            "message length 2147483649 exceeds the RETH DMA length limit: use at most "
            "2147483648 (2^31) bytes");
  EXPECT_EQ(testing::error_of([] { packet_count(kMaxMessageLength + 1, 256); }),
            "message length 2147483649 exceeds the RETH DMA length limit: use at most "
            "2147483648 (2^31) bytes");
  EXPECT_EQ(seg(QpType::uc, WrOpcode::rdma_read, 8, 1024),
            "RDMA_READ is not supported on a uc QP: RDMA READ needs an rc QP");
  EXPECT_EQ(seg(QpType::ud, WrOpcode::rdma_read, 8, 1024),
            "RDMA_READ is not supported on a ud QP: RDMA READ needs an rc QP");
  EXPECT_EQ(seg(QpType::ud, WrOpcode::rdma_write, 8, 1024),
            "RDMA_WRITE is not supported on a ud QP: RDMA WRITE needs an rc or uc QP");
  EXPECT_EQ(seg(QpType::ud, WrOpcode::rdma_write_with_imm, 8, 1024),
            "RDMA_WRITE_WITH_IMM is not supported on a ud QP: RDMA WRITE needs an rc or uc QP");
  EXPECT_EQ(seg(QpType::ud, WrOpcode::send, 1024, 1024), "no error");
  EXPECT_EQ(seg(QpType::ud, WrOpcode::send_with_imm, 1025, 1024),
            "SEND_WITH_IMM of 1025 bytes does not fit the path MTU 1024 of a ud QP: a UD "
            "message must be one packet");
  // Nothing is emitted when the request is rejected.
  int emitted = 0;
  EXPECT_NE(testing::error_of([&] {
              segment(QpType::ud, SendWqe{WrOpcode::send, 5000, 0, 0, 0, false}, 4096, 0, 1,
                      [&](const wire::RoceHeaders&, uint64_t, uint32_t) { ++emitted; });
            }),
            "no error");
  EXPECT_EQ(emitted, 0);
  EXPECT_EQ(testing::error_of(
                [] { request_opcode(QpType::rc, WrOpcode::rdma_read, PacketPosition::first); }),
            "an RDMA READ request is always a single packet");
  EXPECT_EQ(
      testing::error_of([] { request_opcode(QpType::ud, WrOpcode::send, PacketPosition::last); }),
      "a UD message is always a single packet");
}

}  // namespace
}  // namespace bifrost::rnic
