// Virtuoso end to end on the multipath testbed: MP WRITE / READ / SEND byte-exact with exactly
// one MP completion per MP WR, only after every part; large MP SENDs under 10x delay skew and
// random loss never complete before their last byte is placed; small MP SENDs are one SEND;
// disconnect destroys every QP; probing measures unequal paths and the split follows it; a
// second connection between the same hosts does not probe; a recovered QP keeps its path.
#include <gtest/gtest.h>

#include <cstdio>

#include <map>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "virtuoso_bed.h"

namespace bifrost::transport::testing {
namespace {

using virtuoso::MpCompletion;
using virtuoso::MpOp;
using virtuoso::MpReceive;
using virtuoso::MpWr;
using virtuoso::VirtuosoConfig;

VirtuosoConfig config_for(uint32_t paths, bool probe = false) {
  VirtuosoConfig c;
  c.paths = paths;
  c.probe = probe;
  c.rc_timeout = 10;  // 4 ms: losses recover within a test's time
  return c;
}

// Tracks every MP WR of one side: completions per wr_id, and whether its bytes were in place
// at the moment its completion came.
struct Ledger {
  struct Entry {
    MpOp op = MpOp::write;
    uint64_t length = 0;
    int holder = 0;  // the side whose memory must hold `seed` at `addr` on completion
    uint64_t addr = 0;
    uint32_t seed = 0;
    int completions = 0;
    bool in_place_at_completion = false;
    // A small SEND's send completion says the peer's library has it, not that its MP RECV was
    // filled (an earlier MP SEND may still be missing): only its receive is checked so.
    bool check_at_completion = true;
    bool ok = false;
  };
  std::map<uint64_t, Entry> entries;
  int open() const {
    int n = 0;
    for (const auto& [id, e] : entries) n += e.completions == 0 ? 1 : 0;
    return n;
  }
};

class VirtuosoTest : public ::testing::Test {
 protected:
  void build(const VirtuosoBedConfig& bed, const VirtuosoConfig& config) {
    bed_ = std::make_unique<VirtuosoBed>(bed);
    pair_ = bed_->connect(config);
    for (int s = 0; s < 2; ++s) {
      conn(s).set_completion_handler([this, s](const MpCompletion& done) {
        auto& e = ledger_[s].entries.at(done.wr_id);
        ++e.completions;
        e.ok = done.ok;
        e.in_place_at_completion = bed_->holds(e.holder, e.addr, e.length, e.seed);
      });
      conn(s).set_receive_handler([this, s](const MpReceive& r) {
        auto& e = receives_[s].entries.at(r.wr_id);
        ++e.completions;
        e.ok = r.ok && r.bytes == e.length;
        e.in_place_at_completion = bed_->holds(s, e.addr, e.length, e.seed);
      });
    }
  }
  virtuoso::MpConnection& conn(int side) { return *pair_.side[side]; }

  uint64_t write(int from, uint64_t length) {
    Ledger::Entry e{.op = MpOp::write, .length = length, .holder = 1 - from};
    const uint64_t src = bed_->fresh(from, length, &e.seed);
    e.addr = bed_->room(1 - from, length);
    return post(from, e, src, e.addr);
  }
  uint64_t read(int from, uint64_t length) {
    Ledger::Entry e{.op = MpOp::read, .length = length, .holder = from};
    const uint64_t remote = bed_->fresh(1 - from, length, &e.seed);
    e.addr = bed_->room(from, length);
    return post(from, e, e.addr, remote);
  }
  // A SEND of `length` and the MP RECV at the peer (posted first, or after, as asked).
  uint64_t send(int from, uint64_t length, uint64_t buffer_length = 0) {
    Ledger::Entry e{.op = MpOp::send, .length = length, .holder = 1 - from};
    const uint64_t src = bed_->fresh(from, length, &e.seed);
    const int to = 1 - from;
    Ledger::Entry r = e;
    r.addr = bed_->room(to, std::max(length, buffer_length));
    e.check_at_completion = length > conn(from).config().small_send;
    const uint64_t recv_id = next_recv_id_++;
    receives_[to].entries[recv_id] = r;
    conn(to).post_recv(recv_id, MessageBuffer{&bed_->region(to), r.addr,
                                              buffer_length == 0 ? length : buffer_length});
    e.addr = r.addr;
    return post(from, e, src, 0);
  }
  uint64_t post(int from, const Ledger::Entry& e, uint64_t local, uint64_t remote) {
    const uint64_t id = next_id_++;
    ledger_[from].entries[id] = e;
    conn(from).post_send(MpWr{.wr_id = id,
                              .op = e.op,
                              .local = MessageBuffer{&bed_->region(from), local, e.length},
                              .remote = RemoteAddress{remote, bed_->region(1 - from).rkey}});
    return id;
  }
  bool run(Time limit = Time::s(2)) {
    return bed_->run_until(
        [this] {
          return ledger_[0].open() == 0 && ledger_[1].open() == 0 && receives_[0].open() == 0 &&
                 receives_[1].open() == 0;
        },
        limit);
  }
  ::testing::AssertionResult all_once_in_place() const {
    for (int s = 0; s < 2; ++s) {
      for (const Ledger* l : {&ledger_[s], &receives_[s]}) {
        for (const auto& [id, e] : l->entries) {
          const auto where = [&] {
            return ::testing::AssertionFailure()
                   << (l == &ledger_[s] ? "MP WR " : "MP RECV ") << id << " of side " << s << ": ";
          };
          if (e.completions != 1) return where() << e.completions << " completions";
          if (!e.ok) return where() << "failed";
          if (e.check_at_completion && !e.in_place_at_completion) {
            return where() << "completed before its bytes were in place";
          }
          if (!bed_->holds(e.holder, e.addr, e.length, e.seed)) return where() << "bytes differ";
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

  // One MP WRITE of `length` from side 0, alone: its FCT in seconds (0 if it did not finish
  // within 2 s of simulated time).
  double timed_write(uint64_t length) {
    ledger_[0] = {};
    ledger_[1] = {};
    conn(0).set_completion_handler(
        [this](const MpCompletion& d) { ++ledger_[0].entries.at(d.wr_id).completions; });
    const Time start = bed_->kernel().now();
    write(0, length);
    if (!bed_->run_until([&] { return ledger_[0].open() == 0; }, Time::s(2))) return 0;
    return (bed_->kernel().now() - start).seconds();
  }

  std::unique_ptr<VirtuosoBed> bed_;
  VirtuosoBed::Pair pair_;
  Ledger ledger_[2];
  Ledger receives_[2];
  uint64_t next_id_ = 1;
  uint64_t next_recv_id_ = 1000;
};

TEST_F(VirtuosoTest, WritesAndReadsAreByteExactWithOneCompletionAfterAllParts) {
  build(VirtuosoBedConfig{}, config_for(4));
  for (uint64_t length : {1ull, 4096ull, 100'000ull, 3'000'001ull}) {
    write(0, length);
    read(1, length);
  }
  ASSERT_TRUE(run());
  EXPECT_TRUE(all_once_in_place());
  // Every path carried part of the 3 MB WRITE: the paths were all used.
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_GT(bed_->path_link(i).link->a_to_b().counters().data_bytes_delivered, 500'000u) << i;
  }
  EXPECT_EQ(conn(0).stats().mp_completions, 4u);
  EXPECT_GT(conn(0).stats().wrs_posted, 4u);  // WRs, not MP WRs
}

TEST_F(VirtuosoTest, SmallSendIsOneSendOnOnePath) {
  build(VirtuosoBedConfig{}, config_for(4));
  const uint64_t before = conn(0).stats().wrs_posted;
  send(0, 1000);
  ASSERT_TRUE(run());
  EXPECT_TRUE(all_once_in_place());
  EXPECT_EQ(conn(0).stats().wrs_posted - before, 1u);
  EXPECT_EQ(conn(0).stats().small_sends, 1u);
  EXPECT_EQ(conn(0).stats().large_sends, 0u);
}

TEST_F(VirtuosoTest, SendsFillReceivesInOrderWhateverTheSizeMix) {
  build(VirtuosoBedConfig{}, config_for(3));
  RandomStream rng(5, "sizes");
  for (int i = 0; i < 30; ++i) {
    send(i % 2, rng.uniform_int(0, 1) == 0 ? rng.uniform_int(1, 16 * 1024)
                                           : rng.uniform_int(16 * 1024 + 1, 600'000));
  }
  ASSERT_TRUE(run());
  EXPECT_TRUE(all_once_in_place());
  EXPECT_GT(conn(0).stats().large_sends, 0u);
  EXPECT_GT(conn(0).stats().small_sends, 0u);
}

TEST_F(VirtuosoTest, LargeSendNeverCompletesBeforeItsLastByteUnderSkewAndLoss) {
  VirtuosoBedConfig bed;
  bed.paths = 4;
  bed.path_delays = {Time::us(5), Time::us(50), Time::us(10), Time::us(20)};  // 10x apart
  bed.path_loss = 0.002;
  for (uint64_t seed : {1u, 2u, 3u}) {
    bed.seed = seed;
    build(bed, config_for(4));
    for (int i = 0; i < 6; ++i) send(0, 200'000 + 77'777 * i);
    ASSERT_TRUE(run(Time::s(20))) << "seed " << seed;
    EXPECT_TRUE(all_once_in_place()) << "seed " << seed;
    uint64_t lost = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      lost += bed_->path_link(i).link->a_to_b().counters().drops.total_packets();
    }
    EXPECT_GT(lost, 0u) << "the loss must have struck";
    EXPECT_EQ(conn(0).stats().large_sends, 6u);
    pair_ = {};
    ledger_[0] = ledger_[1] = receives_[0] = receives_[1] = {};
  }
}

TEST_F(VirtuosoTest, SendLongerThanTheReceiveBufferFailsBothSides) {
  build(VirtuosoBedConfig{}, config_for(2));
  const uint64_t id = send(0, 100'000, 50'000);
  ASSERT_TRUE(run());
  EXPECT_EQ(ledger_[0].entries.at(id).completions, 1);
  EXPECT_FALSE(ledger_[0].entries.at(id).ok);
  EXPECT_EQ(receives_[1].entries.begin()->second.completions, 1);
  EXPECT_FALSE(receives_[1].entries.begin()->second.ok);
}

TEST_F(VirtuosoTest, DisconnectLeavesNoQp) {
  build(VirtuosoBedConfig{}, config_for(4));
  write(0, 100'000);
  ASSERT_TRUE(run());
  std::vector<uint32_t> qpns[2];
  for (int s = 0; s < 2; ++s) {
    for (const Path& p : conn(s).paths()) qpns[s].push_back(p.qp->qp_num());
    ASSERT_EQ(qpns[s].size(), 4u);
    for (uint32_t q : qpns[s]) ASSERT_NE(bed_->device(s).find_qp(q), nullptr);
  }
  write(0, 100'000);
  EXPECT_THROW(conn(0).disconnect(), Error);  // an MP WR is open
  ASSERT_TRUE(run());
  for (int s = 0; s < 2; ++s) {
    conn(s).disconnect();
    for (uint32_t q : qpns[s]) EXPECT_EQ(bed_->device(s).find_qp(q), nullptr);
    EXPECT_TRUE(conn(s).paths().empty());
    EXPECT_THROW(conn(s).post_send(
                     MpWr{.local = {&bed_->region(s), VirtuosoBed::kAppBase, 1}, .remote = {}}),
                 Error);
  }
}

TEST_F(VirtuosoTest, ProbingMeasuresUnequalPathsAndTheSplitFollows) {
  VirtuosoBedConfig bed;
  bed.path_rates = {Rate::Gbps(1), Rate::Gbps(1), Rate::Gbps(2), Rate::Gbps(4)};
  virtuoso::PathEstimateCache cache;
  bed_ = std::make_unique<VirtuosoBed>(bed);
  pair_ = bed_->connect(config_for(4, true), &cache);
  ASSERT_TRUE(
      bed_->run_until([&] { return !conn(0).probing() && !conn(1).probing(); }, Time::s(1)));
  for (int s = 0; s < 2; ++s) {
    const auto& cap = conn(s).capacities();
    ASSERT_EQ(cap.size(), 4u);
    for (uint32_t i = 0; i < 4; ++i) {
      const double truth = bed.path_rates[i].bits_per_second();
      EXPECT_NEAR(cap[i], truth, 0.1 * truth) << "side " << s << " path " << i;
    }
    EXPECT_EQ(conn(s).stats().probes, 4u);
  }
  // A 40 MB WRITE: each path link carries its share of eq. (1) on the estimates, within a
  // block (plus packet headers), and the shares are proportional to the true rates within 10%.
  std::vector<uint64_t> before;
  for (uint32_t i = 0; i < 4; ++i) {
    before.push_back(bed_->path_link(i).link->a_to_b().counters().data_bytes_sent);
  }
  const uint64_t length = 40'000'000;
  const auto shares = conn(0).load_balancer().split(length, conn(0).capacities(), 4096);
  double sum = 0;
  for (double c : conn(0).capacities()) sum += c;
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_LE(std::abs(static_cast<double>(shares[i]) - length * conn(0).capacities()[i] / sum),
              4096.0);
  }
  const double fct = timed_write(length);
  ASSERT_GT(fct, 0);
  for (uint32_t i = 0; i < 4; ++i) {
    const uint64_t carried =
        bed_->path_link(i).link->a_to_b().counters().data_bytes_sent - before[i];
    // Frame bytes: payload plus at most ~2% headers at a 4 KiB MTU.
    EXPECT_GE(carried, shares[i]) << i;
    EXPECT_LE(carried, shares[i] * 1.03 + 4096) << i;
    const double truth = static_cast<double>(bed.path_rates[i].bits_per_second()) / 8e9;
    EXPECT_NEAR(static_cast<double>(shares[i]) / length, truth, 0.1 * truth) << i;
  }
  // The FCT is above the message over the paths' 8 Gb/s, but not by much: the NIC serves the
  // four path QPs in turns (2.5 Gb/s each) until the slow paths' WRs have left it, so the
  // 4 Gb/s path is underfed meanwhile (about 17% here; docs/transport.md, "Virtuoso").
  const double ideal = length * 8 / 8e9;
  EXPECT_GT(fct, ideal);
  EXPECT_LT(fct, 1.25 * ideal);

  // A second connection between the same hosts starts from the cache.
  auto second = bed_->connect(config_for(4, true), &cache);
  for (int s = 0; s < 2; ++s) {
    EXPECT_FALSE(second.side[s]->probing());
    EXPECT_EQ(second.side[s]->stats().probes, 0u);
    EXPECT_EQ(second.side[s]->stats().probe_cache_hits, 1u);
    EXPECT_EQ(second.side[s]->capacities(), conn(s).capacities());
  }
}

// Pacing each path QP at its probed capacity (config.pace_paths, ours) closes the gap the test
// above measures: the NIC no longer serves the slow paths' WRs at the fast path's expense.
TEST_F(VirtuosoTest, PacedPathsFinishUnequalPathsAtTheirSum) {
  VirtuosoBedConfig bed;
  bed.path_rates = {Rate::Gbps(1), Rate::Gbps(1), Rate::Gbps(2), Rate::Gbps(4)};
  const uint64_t length = 40'000'000;
  const double ideal = length * 8 / 8e9;
  double fct[2] = {0, 0};
  for (const bool paced : {false, true}) {
    bed_ = std::make_unique<VirtuosoBed>(bed);
    VirtuosoConfig c = config_for(4, true);
    c.pace_paths = paced;
    pair_ = bed_->connect(c);
    ASSERT_TRUE(
        bed_->run_until([&] { return !conn(0).probing() && !conn(1).probing(); }, Time::s(1)));
    fct[paced] = timed_write(length);
    ASSERT_GT(fct[paced], 0);
    pair_ = {};
    bed_.reset();
  }
  std::printf("40 MB over {1, 1, 2, 4} Gb/s: FCT / ideal %.3f unpaced, %.3f paced\n",
              fct[0] / ideal, fct[1] / ideal);
  EXPECT_GT(fct[0], 1.10 * ideal);  // the gap the test above allows for
  // Paced, what is left is the probes' estimates (payload rate over a 512 KB FCT, a little
  // below the line rate) and the frames' headers: within 8% of the ideal, and most of the
  // unpaced gap closed.
  EXPECT_GT(fct[1], ideal);
  EXPECT_LT(fct[1], 1.08 * ideal);
  EXPECT_LT(fct[1], 0.93 * fct[0]);
}

TEST_F(VirtuosoTest, RecoveredQpKeepsItsAliasPairAndSourcePort) {
  VirtuosoBedConfig bed;
  build(bed, [] {
    VirtuosoConfig c = config_for(4);
    c.rc_timeout = 8;  // 1 ms
    c.rc_retry_cnt = 1;
    return c;
  }());
  write(0, 1'000'000);
  ASSERT_TRUE(run());
  const std::vector<Path> before = conn(0).paths();
  const uint64_t via_path2 = bed_->path_link(2).link->a_to_b().counters().data_frames_delivered;
  // Path link 2 dies for 20 ms: its QPs exhaust their retries and are recovered in place.
  bed_->path_link(2).link->fail();
  bed_->kernel().at(bed_->kernel().now() + Time::ms(20),
                    [this] { bed_->path_link(2).link->recover(); });
  write(0, 4'000'000);
  write(1, 4'000'000);
  ASSERT_TRUE(run(Time::s(5)));
  EXPECT_TRUE(all_once_in_place());
  EXPECT_GE(conn(0).stats().retry_exceeded, 1u);
  EXPECT_GE(conn(0).stats().recoveries, 1u);
  EXPECT_GE(conn(1).stats().recoveries, 1u);
  EXPECT_GE(conn(0).stats().wrs_reposted, 1u);
  EXPECT_GE(conn(0).resync_stats().reconnects_done + conn(1).resync_stats().reconnects_done, 1u);
  const std::vector<Path> after = conn(0).paths();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(after[i].qp, before[i].qp);
    EXPECT_EQ(after[i].qp->qp_num(), before[i].qp->qp_num());
    EXPECT_EQ(after[i].gid_index, before[i].gid_index);
    EXPECT_EQ(after[i].source_port, before[i].source_port);
    EXPECT_EQ(after[i].qp->query().av.sgid_index, *before[i].gid_index);
    EXPECT_EQ(after[i].qp->query().udp_sport, before[i].source_port);
    EXPECT_EQ(after[i].qp->state(), rnic::QpState::rts);
  }
  // After the recovery, path 2's alias pair still crosses path link 2.
  EXPECT_GT(bed_->path_link(2).link->a_to_b().counters().data_frames_delivered, via_path2 + 100);
}

}  // namespace
}  // namespace bifrost::transport::testing
