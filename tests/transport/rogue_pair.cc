#include "rogue_pair.h"

namespace bifrost::transport::testing {

namespace {

constexpr uint64_t kRegionBase = 0x5000'0000'0000;
constexpr uint64_t kRegionBytes = uint64_t{1} << 40;

sim::TransportPairConfig pair_config(const sim::LossyWireConfig& wire,
                                     const rnic::DeviceConfig& device) {
  sim::TransportPairConfig c;
  c.wire = wire;
  c.device = device;
  c.bifrost_connection = false;
  c.app_bytes = 1 << 20;
  return c;
}

// Receive wr_ids carry the sending side's verb index and this bit.
constexpr uint64_t kReceiveTag = uint64_t{1} << 62;

}  // namespace

RoguePair::RoguePair(const rogue::RogueConfig& config, const sim::LossyWireConfig& wire,
                     const rnic::DeviceConfig& device)
    : pair_(pair_config(wire, device)), uc_(config.qp_type == rogue::QpType::uc) {
  for (int i = 0; i < 2; ++i) {
    Side& s = sides_[i];
    auto& p = pair_.side(i);
    s.connection = std::make_unique<rogue::RogueConnection>(*p.endpoint, config);
    s.memory = std::make_unique<rnic::TokenMemory>(kRegionBase, kRegionBytes);
    s.region = &p.device->reg_mr(
        p.endpoint->pd(), kRegionBase, kRegionBytes,
        rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read,
        s.memory.get());
    s.next_addr = kRegionBase;
    s.connection->set_completion_handler([this, i](const rogue::Completion& c) {
      Verb& v = sides_[i].verbs.at(c.wr_id);
      ++v.completions;
      if (c.status != rogue::Status::success) v.failed = true;
    });
    s.connection->set_receive_handler([this, i](const rogue::Receive& r) {
      ++sides_[1 - i].verbs.at(r.wr_id & ~kReceiveTag).receives;
    });
  }
  sides_[0].connection->connect(sides_[1].connection->offer());
  sides_[1].connection->connect(sides_[0].connection->offer());
}

uint64_t RoguePair::fresh(int side, uint64_t length) {
  const uint64_t addr = sides_[side].next_addr;
  // A gap between buffers: a write past its end would show in a neighbour's check.
  sides_[side].next_addr += (length + 8191) / 4096 * 4096;
  return addr;
}

uint64_t RoguePair::post(int from, rogue::Op op, uint64_t length, bool signaled,
                         std::optional<uint32_t> imm) {
  Side& s = sides_[from];
  Side& peer = sides_[1 - from];
  Verb v;
  v.op = op;
  v.length = length;
  v.seed = next_seed_++;
  v.signaled = signaled;
  const int holder = op == rogue::Op::read ? 1 - from : from;
  v.source = fresh(holder, length);
  v.destination = fresh(1 - holder, length);
  sides_[holder].memory->fill(v.source, length, v.seed);
  const uint64_t wr_id = s.verbs.size();
  v.expects_receive = op == rogue::Op::send || imm.has_value();
  if (v.expects_receive) {
    const uint64_t length_posted = op == rogue::Op::send ? length : 0;
    peer.connection->post_recv(kReceiveTag | wr_id,
                               MessageBuffer{peer.region, v.destination, length_posted});
  }
  s.verbs.push_back(v);
  rogue::Work w;
  w.wr_id = wr_id;
  w.op = op;
  w.signaled = signaled;
  w.imm = imm;
  if (op == rogue::Op::read) {
    w.local = MessageBuffer{s.region, v.destination, length};
    w.remote = RemoteAddress{v.source, peer.region->rkey};
  } else {
    w.local = MessageBuffer{s.region, v.source, length};
    w.remote = RemoteAddress{v.destination, peer.region->rkey};
  }
  s.connection->post(w);
  return wr_id;
}

uint64_t RoguePair::write(int from, uint64_t length, bool signaled, std::optional<uint32_t> imm) {
  return post(from, rogue::Op::write, length, signaled, imm);
}
uint64_t RoguePair::read(int from, uint64_t length) {
  return post(from, rogue::Op::read, length, true, std::nullopt);
}
uint64_t RoguePair::send(int from, uint64_t length, std::optional<uint32_t> imm) {
  return post(from, rogue::Op::send, length, true, imm);
}

uint64_t RoguePair::completed(int side) const {
  uint64_t n = 0;
  for (const Verb& v : sides_[side].verbs) n += v.completions;
  return n;
}

bool RoguePair::run_until_done(Time limit) {
  const Time end = kernel().now() + limit;
  const auto done = [this] {
    for (const Side& s : sides_) {
      for (const Verb& v : s.verbs) {
        if (v.signaled && v.completions == 0) return false;
        if (!uc_ && v.expects_receive && v.receives == 0) return false;
      }
      if (!s.connection->idle()) return false;
    }
    return true;
  };
  while (!done() && kernel().now() < end && kernel().step()) {
  }
  return done();
}

bool RoguePair::intact(const Side& holder, uint64_t addr, const Verb& v) const {
  const rnic::ContentRun run = holder.memory->content_at(addr, v.length);
  return run.is_pattern && run.length == v.length && run.seed == v.seed && run.pattern_offset == 0;
}

::testing::AssertionResult RoguePair::all_done_once() const {
  for (int i = 0; i < 2; ++i) {
    const Side& s = sides_[i];
    for (size_t k = 0; k < s.verbs.size(); ++k) {
      const Verb& v = s.verbs[k];
      const auto where = [&] {
        return ::testing::AssertionFailure() << "side " << i << " verb " << k << ": ";
      };
      if (v.failed) return where() << "failed";
      if (v.signaled && v.completions != 1) return where() << v.completions << " completions";
      if (!v.signaled && v.completions != 0) return where() << "unsignaled but completed";
      if (uc_) continue;
      const int destination = v.op == rogue::Op::read ? i : 1 - i;
      if (!intact(sides_[destination], v.destination, v)) return where() << "bytes differ";
      if (v.expects_receive && v.receives != 1) return where() << v.receives << " receives";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bifrost::transport::testing
