#include "bifrost/sim/virtuoso_bed.h"

#include "bifrost/core/error.h"
#include "bifrost/sim/topology/graph.h"

namespace bifrost::sim {

VirtuosoBed::VirtuosoBed(const VirtuosoBedConfig& config) {
  scenario::MultipathTopology t;
  t.paths = config.paths;
  t.host = {config.host_rate, Time::us(1)};
  t.path = {config.path_rate, config.path_delay};
  t.path_rates = config.path_rates;
  topology::Graph graph = topology::describe(t);
  if (!config.path_delays.empty()) {
    uint32_t i = 0;
    for (auto& e : graph.edges) {
      if (e.link_class == "path") e.link.delay = config.path_delays.at(i++);
    }
  }
  NetworkConfig nc;
  nc.switches.buffer = config.switch_buffer;
  nc.mtu = Bytes(4096);  // Virtuoso's path QPs' MTU: PFC headroom is sized for its frames
  nc.switches.pfc.enabled = config.pfc;
  // The endpoints' data goes at traffic class 0, priority 0: the one PFC must protect.
  nc.lossless_priorities = 1u << 0;
  nc.seed = config.seed;
  nc.addressing = {config.paths, config.routing};
  network_ = std::make_unique<Network>(kernel_, std::move(graph), nc);
  for (const auto& l : network_->links()) {
    if (l.link_class != "path" || config.path_loss == 0) continue;
    l.link->a_to_b().set_loss_rate(config.path_loss);
    l.link->b_to_a().set_loss_rate(config.path_loss);
  }
  for (int s = 0; s < 2; ++s) {
    Side& side = sides_[s];
    net::Host& host = network_->host(static_cast<uint32_t>(s));
    rnic::DeviceConfig dc = config.device;
    dc.name = host.name();
    dc.gids = host.addresses();
    side.device = std::make_unique<rnic::Device>(kernel_, dc);
    side.device->attach(host);
    transport::EndpointConfig ec;
    ec.seed = config.seed * 7 + static_cast<uint64_t>(s);
    side.endpoint = std::make_unique<transport::Endpoint>(*side.device, ec);
    side.memory = std::make_unique<rnic::TokenMemory>(kAppBase, kAppBytes);
    side.region = &side.device->reg_mr(
        side.endpoint->pd(), kAppBase, kAppBytes,
        rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read,
        side.memory.get());
  }
}

VirtuosoBed::~VirtuosoBed() = default;

const Network::LinkInfo& VirtuosoBed::path_link(uint32_t i) const {
  uint32_t seen = 0;
  for (const auto& l : network_->links()) {
    if (l.link_class == "path" && seen++ == i) return l;
  }
  throw Error("no path link {}", i);
}

VirtuosoBed::Pair VirtuosoBed::connect(const transport::virtuoso::VirtuosoConfig& config,
                                       transport::virtuoso::PathEstimateCache* cache) {
  Pair p;
  for (int s = 0; s < 2; ++s) {
    p.side[s] =
        std::make_unique<transport::virtuoso::MpConnection>(*sides_[s].endpoint, config, cache);
  }
  const transport::virtuoso::MpOffer a = p.side[0]->offer();
  const transport::virtuoso::MpOffer b = p.side[1]->offer();
  p.side[0]->connect(b);
  p.side[1]->connect(a);
  return p;
}

uint64_t VirtuosoBed::room(int side, uint64_t length) {
  Side& s = sides_[side];
  const uint64_t addr = s.next_addr;
  s.next_addr += (length + 4095) / 4096 * 4096 + 4096;
  if (s.next_addr > kAppBase + kAppBytes) throw Error("the test bed's memory is used up");
  return addr;
}

uint64_t VirtuosoBed::fresh(int side, uint64_t length, uint32_t* seed) {
  const uint64_t addr = room(side, length);
  *seed = next_seed_++;
  sides_[side].memory->fill(addr, length, *seed);
  return addr;
}

bool VirtuosoBed::holds(int side, uint64_t addr, uint64_t length, uint32_t seed) const {
  const rnic::ContentRun run = sides_[side].memory->content_at(addr, length);
  return run.is_pattern && run.length == length && run.seed == seed && run.pattern_offset == 0;
}

}  // namespace bifrost::sim
