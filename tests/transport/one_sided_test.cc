// One-sided WRITE and READ through a Bifröst connection, in both modes: bytes land where the
// remote address says and nowhere else, every operation completes exactly once, refused keys
// and ranges complete with remote_access_error, and the connection carries on afterwards.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/transport/wire/send_header.h"
#include "support/property.h"
#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

// Each side exposes a window of `kSlots` slots of `kSlotBytes` for one-sided access, registered
// with remote read and write, between two guard pages of the same memory that no key grants.
constexpr uint64_t kSlotBytes = 1 << 20;
constexpr uint64_t kSlots = 24;
constexpr uint64_t kGuard = 4096;
constexpr uint64_t kWindowBase = 0x5000'0000'0000;
constexpr uint32_t kPatternBase = 7000;

struct Window {
  std::unique_ptr<rnic::TokenMemory> memory;
  std::unique_ptr<rnic::TokenMemory> pristine;   // the same initial content, never touched
  const rnic::MemoryRegion* region = nullptr;    // remote read and write over the window
  const rnic::MemoryRegion* no_write = nullptr;  // a key over slot 0 granting remote read only
  std::vector<bool> touched;                     // per slot: written by an operation

  uint64_t slot(uint64_t i) const { return kWindowBase + i * kSlotBytes; }
};

class OneSidedBench {
 public:
  explicit OneSidedBench(const TransportPairConfig& config) : pair_(config) {
    for (int i = 0; i < 2; ++i) windows_[i] = make_window(i);
  }

  TransportPair& pair() { return pair_; }
  Connection& connection(int side) { return *pair_.side(side).connection; }
  Window& window(int side) { return windows_[side & 1]; }

  // Writes `length` fresh bytes from `from`'s application memory to slot `slot` of the peer.
  void write(int from, uint64_t slot, uint64_t length) {
    TransportPair::Side& s = pair_.side(from);
    const uint64_t src = s.next_addr;
    s.next_addr += (length + 4095) / 4096 * 4096 + 4096;
    s.app->fill(src, length, static_cast<uint32_t>(kPatternBase + 100 + ops_.size()));
    Window& target = window(1 - from);
    target.touched[slot] = true;
    s.connection->write(MessageBuffer{s.app_region, src, length},
                        RemoteAddress{target.slot(slot), target.region->rkey},
                        expect(Expect{.to = s.app,
                                      .to_addr = src,
                                      .from = target.memory.get(),
                                      .from_addr = target.slot(slot),
                                      .length = length}));
  }

  // Reads `length` bytes of the peer's slot `remote_slot` into our own slot `local_slot`.
  void read(int from, uint64_t local_slot, uint64_t remote_slot, uint64_t length) {
    Window& own = window(from);
    Window& peer = window(1 - from);
    own.touched[local_slot] = true;
    connection(from).read(MessageBuffer{own.region, own.slot(local_slot), length},
                          RemoteAddress{peer.slot(remote_slot), peer.region->rkey},
                          expect(Expect{.to = peer.memory.get(),
                                        .to_addr = peer.slot(remote_slot),
                                        .from = own.memory.get(),
                                        .from_addr = own.slot(local_slot),
                                        .length = length}));
  }

  // Runs until every operation completed and both connections are idle, or `limit` passes.
  bool run(Time limit) {
    const Time end = pair_.kernel().now() + limit;
    auto settled = [this] { return finished() && connection(0).idle() && connection(1).idle(); };
    while (!settled() && pair_.kernel().now() < end) {
      pair_.kernel().run_until(std::min(end, pair_.kernel().now() + Time::us(100)));
    }
    return settled();
  }

  // Every operation completed once, delivered, with the bytes where they belong.
  ::testing::AssertionResult all_in_place() const {
    for (size_t i = 0; i < ops_.size(); ++i) {
      const Op& op = ops_[i];
      if (op.completions != 1 || op.status != SendStatus::delivered) {
        return ::testing::AssertionFailure() << "operation " << i << " completed " << op.completions
                                             << " times, status " << static_cast<int>(op.status);
      }
      const Expect& e = op.expect;
      if (!rnic::same_content(*e.to, e.to_addr, *e.from, e.from_addr, e.length)) {
        return ::testing::AssertionFailure() << "operation " << i << ": bytes differ";
      }
    }
    return ::testing::AssertionSuccess();
  }

  // Guard pages and untouched slots of both windows hold their initial bytes.
  ::testing::AssertionResult untouched_intact() const {
    for (int s = 0; s < 2; ++s) {
      const Window& w = windows_[s];
      const uint64_t base = kWindowBase - kGuard;
      if (!rnic::same_content(*w.memory, base, *w.pristine, base, kGuard) ||
          !rnic::same_content(*w.memory, w.slot(kSlots), *w.pristine, w.slot(kSlots), kGuard)) {
        return ::testing::AssertionFailure() << "side " << s << ": a guard page changed";
      }
      for (uint64_t i = 0; i < kSlots; ++i) {
        if (!w.touched[i] &&
            !rnic::same_content(*w.memory, w.slot(i), *w.pristine, w.slot(i), kSlotBytes)) {
          return ::testing::AssertionFailure()
                 << "side " << s << ": untouched slot " << i << " changed";
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

  SendStatus status(size_t op) const { return ops_[op].status; }
  uint32_t completions(size_t op) const { return ops_[op].completions; }

 private:
  struct Expect {
    const rnic::HostMemory* to = nullptr;  // compared with `from` once the operation is done
    uint64_t to_addr = 0;
    const rnic::HostMemory* from = nullptr;
    uint64_t from_addr = 0;
    uint64_t length = 0;
  };
  struct Op {
    Expect expect;
    uint32_t completions = 0;
    SendStatus status = SendStatus::failed;
  };

  Window make_window(int side) {
    Window w;
    const uint64_t base = kWindowBase - kGuard;
    const uint64_t size = kSlots * kSlotBytes + 2 * kGuard;
    w.memory = std::make_unique<rnic::TokenMemory>(base, size);
    w.pristine = std::make_unique<rnic::TokenMemory>(base, size);
    w.memory->fill(base, size, kPatternBase + static_cast<uint32_t>(side));
    w.pristine->fill(base, size, kPatternBase + static_cast<uint32_t>(side));
    rnic::Device& device = pair_.side(side).connection->endpoint().device();
    const rnic::ProtectionDomain pd = pair_.side(side).connection->endpoint().pd();
    w.region = &device.reg_mr(
        pd, kWindowBase, kSlots * kSlotBytes,
        rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read,
        w.memory.get());
    w.no_write =
        &device.reg_mr(pd, kWindowBase, kSlotBytes,
                       rnic::Access::local_write | rnic::Access::remote_read, w.memory.get());
    w.touched.assign(kSlots, false);
    return w;
  }

  // Records an operation and what must hold once it is done; its completion callback.
  SendCallback expect(const Expect& e) {
    const size_t index = ops_.size();
    ops_.push_back(Op{.expect = e});
    return [this, index](const SendCompletion& c) {
      ++ops_[index].completions;
      ops_[index].status = c.status;
    };
  }

  bool finished() const {
    for (const Op& op : ops_) {
      if (op.completions == 0) return false;
    }
    return true;
  }

  TransportPair pair_;
  Window windows_[2];
  std::vector<Op> ops_;
};

TransportPairConfig config_for(Reliability reliability) {
  TransportPairConfig c;
  c.transport.reliability = reliability;
  c.wire.delay = Time::us(2);
  return c;
}

class OneSidedModes : public ::testing::TestWithParam<Reliability> {};

TEST_P(OneSidedModes, WritesThenReadsLandExactlyWhereAddressed) {
  OneSidedBench bench(config_for(GetParam()));
  const std::vector<uint64_t> sizes = {1, 100, 4096, 40000, 1 << 20};
  for (size_t i = 0; i < sizes.size(); ++i) {
    bench.write(0, i, sizes[i]);
    bench.write(1, i, sizes[i]);
  }
  ASSERT_TRUE(bench.run(Time::ms(50)));
  // Read back what each side wrote into the peer, into slots of its own.
  for (size_t i = 0; i < sizes.size(); ++i) {
    bench.read(0, 10 + i, i, sizes[i]);
    bench.read(1, 10 + i, i, sizes[i]);
  }
  ASSERT_TRUE(bench.run(Time::ms(50)));
  EXPECT_TRUE(bench.all_in_place());
  EXPECT_TRUE(bench.untouched_intact());
  for (int s = 0; s < 2; ++s) {
    const SenderStats& st = bench.connection(s).sender_stats();
    // Over UC a READ is answered by the peer's own one-sided WRITE: each side also wrote the
    // data of the peer's reads.
    const uint64_t writes = GetParam() == Reliability::software_uc ? 2 : 1;
    EXPECT_EQ(st.writes_done, writes * sizes.size());
    EXPECT_EQ(st.reads_done, sizes.size());
    EXPECT_EQ(st.retransmitted_wqes, 0u);
    // One-sided operations deliver nothing to the application.
    EXPECT_EQ(bench.connection(s).receiver_stats().messages_delivered, 0u);
  }
  if (GetParam() == Reliability::software_uc) {
    EXPECT_EQ(bench.connection(1).receiver_stats().writes_placed, 2 * sizes.size());
    EXPECT_EQ(bench.connection(1).receiver_stats().reads_served, sizes.size());
  }
}

TEST_P(OneSidedModes, RefusedKeysAndRangesReportRemoteAccessErrorAndTheConnectionCarriesOn) {
  OneSidedBench bench(config_for(GetParam()));
  TransportPair::Side& a = bench.pair().side(0);
  Window& peer = bench.window(1);
  const MessageBuffer src{a.app_region, TransportPair::kAppBase, 8192};
  const MessageBuffer dst{bench.window(0).region, bench.window(0).slot(3), 8192};
  std::vector<SendStatus> statuses;
  auto record = [&statuses](const SendCompletion& c) { statuses.push_back(c.status); };
  // A key that does not exist, a range past the region's end, a key without remote write.
  bench.connection(0).write(src, RemoteAddress{peer.slot(0), peer.region->rkey ^ 0x5a5a}, record);
  bench.connection(0).write(src, RemoteAddress{peer.slot(kSlots) - 4096, peer.region->rkey},
                            record);
  bench.connection(0).write(src, RemoteAddress{peer.slot(0), peer.no_write->rkey}, record);
  bench.connection(0).read(dst, RemoteAddress{peer.slot(0), peer.region->rkey ^ 0x5a5a}, record);
  ASSERT_TRUE(bench.run(Time::ms(200)));
  ASSERT_EQ(statuses.size(), 4u);
  for (const SendStatus s : statuses) EXPECT_EQ(s, SendStatus::remote_access_error);
  EXPECT_TRUE(bench.untouched_intact());
  EXPECT_EQ(bench.connection(0).sender_stats().one_sided_refused, 4u);
  // The connection is still good for messages and one-sided operations.
  bench.pair().send(0, 50000);
  bench.write(0, 5, 50000);
  ASSERT_TRUE(bench.run(Time::ms(200)));
  EXPECT_TRUE(bench.pair().all_delivered_once());
  EXPECT_EQ(bench.completions(0), 1u);
  EXPECT_EQ(bench.status(0), SendStatus::delivered);
}

INSTANTIATE_TEST_SUITE_P(BothModes, OneSidedModes,
                         ::testing::Values(Reliability::software_uc, Reliability::hardware_rc),
                         [](const auto& param_info) {
                           return std::string(param_info.param == Reliability::software_uc ? "Uc"
                                                                                           : "Rc");
                         });

// The notice of a UC one-sided WRITE is lost: its chunks reach the target first and are
// neither recorded nor acknowledged; the sender resends notice and pieces, the target copies
// the pieces into place, and the bytes end up exactly where addressed.
TEST(OneSided, UcWriteWhoseNoticeIsLostIsRepairedByPieces) {
  OneSidedBench bench(config_for(Reliability::software_uc));
  int sends = 0;
  bench.pair().wire().set_drop_filter(0, [&sends](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kUcSendOnly && ++sends == 1;
  });
  bench.write(0, 2, 300000);
  bench.pair().send(0, 100);  // acknowledged: shows the sender the gap before it
  ASSERT_TRUE(bench.run(Time::ms(50)));
  EXPECT_TRUE(bench.all_in_place());
  EXPECT_TRUE(bench.untouched_intact());
  EXPECT_TRUE(bench.pair().all_delivered_once());
  const ReceiverStats& r = bench.connection(1).receiver_stats();
  EXPECT_GT(r.early_writes, 0u);
  EXPECT_GT(r.pieces_placed, 0u);
  EXPECT_EQ(r.writes_placed, 1u);
}

TEST(OneSided, UcReadNeedsARemotelyWritableDestination) {
  OneSidedBench bench(config_for(Reliability::software_uc));
  TransportPair::Side& a = bench.pair().side(0);
  EXPECT_THROW(bench.connection(0).read(
                   MessageBuffer{a.app_region, TransportPair::kAppBase, 64},
                   RemoteAddress{bench.window(1).slot(0), bench.window(1).region->rkey}),
               Error);
  EXPECT_THROW(bench.connection(0).write(MessageBuffer{a.app_region, TransportPair::kAppBase, 0},
                                         RemoteAddress{}),
               Error);
}

// Property: under random loss, duplication and reordering, random one-sided WRITEs (phase 1)
// and READs of what was written (phase 2), mixed with messages, all complete once with their
// bytes in place, and no byte outside the addressed ranges changes.
void run_seed(uint64_t seed, Reliability reliability, double max_loss) {
  RandomStream r(seed, "one-sided-property");
  const TransportPairConfig c = testing::random_lossy_config(r, seed, reliability, max_loss);
  OneSidedBench bench(c);
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " loss " << c.wire.loss << " dup "
                                    << c.wire.duplicate << " reorder " << c.wire.reorder);
  auto size = [&r] {
    return r.bernoulli(0.3) ? r.uniform_int(1, 4096) : r.uniform_int(4097, kSlotBytes);
  };
  std::vector<uint64_t> written[2];  // per writer: the peer slots written and their lengths
  std::vector<uint64_t> lengths[2];
  for (int side = 0; side < 2; ++side) {
    const int writes = static_cast<int>(r.uniform_int(2, 8));
    for (int i = 0; i < writes; ++i) {
      const uint64_t length = size();
      bench.write(side, static_cast<uint64_t>(i), length);
      written[side].push_back(static_cast<uint64_t>(i));
      lengths[side].push_back(length);
      if (r.bernoulli(0.5)) bench.pair().send(side, r.uniform_int(8, 70000));
    }
  }
  ASSERT_TRUE(bench.run(Time::s(5)));
  for (int side = 0; side < 2; ++side) {
    for (size_t i = 0; i < written[side].size(); ++i) {
      bench.read(side, 12 + i, written[side][i], lengths[side][i]);
      if (r.bernoulli(0.5)) bench.pair().send(side, r.uniform_int(8, 70000));
    }
  }
  ASSERT_TRUE(bench.run(Time::s(5)));
  EXPECT_TRUE(bench.all_in_place());
  EXPECT_TRUE(bench.untouched_intact());
  EXPECT_TRUE(bench.pair().all_delivered_once());
  for (int s = 0; s < 2; ++s) EXPECT_EQ(bench.connection(s).receiver_stats().malformed, 0u);
}

TEST(OneSidedProperty, SoftwareUcUnderLossDupAndReorder) {
  for (const uint64_t seed : bifrost::testing::property_seeds(10)) {
    run_seed(seed, Reliability::software_uc, 0.05);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(OneSidedProperty, HardwareRcUnderLossDupAndReorder) {
  for (const uint64_t seed : bifrost::testing::property_seeds(10)) {
    run_seed(seed, Reliability::hardware_rc, 0.01);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(OneSidedWire, NoticeAndReadRequestTrailersRoundTrip) {
  const OneSidedTrailer t{.rkey = 0x01020304, .reply_rkey = 0xa0b0c0d0, .reply_address = 0x7000};
  std::array<std::byte, kOneSidedTrailerSize> bytes{};
  ASSERT_TRUE(encode_one_sided_trailer(t, bytes).ok());
  EXPECT_EQ(bytes[0], std::byte{0x01});  // network order
  const auto back = decode_one_sided_trailer(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value.rkey, t.rkey);
  EXPECT_EQ(back.value.reply_rkey, t.reply_rkey);
  EXPECT_EQ(back.value.reply_address, t.reply_address);
  EXPECT_FALSE(decode_one_sided_trailer(std::span(bytes).first(15)).ok());
  for (const SendType type : {SendType::write_notice, SendType::write_refused,
                              SendType::read_request, SendType::read_done}) {
    std::array<std::byte, kSendHeaderSize> header{};
    ASSERT_TRUE(encode_send_header(SendHeader{.type = type, .message_id = 9}, header).ok());
    const auto decoded = decode_send_header(header);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded.value.type, type);
  }
  std::array<std::byte, kSendHeaderSize> bad{};
  bad[0] = std::byte{10};  // past ack
  EXPECT_FALSE(decode_send_header(bad).ok());
}

}  // namespace
}  // namespace bifrost::transport
