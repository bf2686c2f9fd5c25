#pragma once
// Small topologies for the net tests: hosts, switches and links owned in one place, with the
// event kernel declared first so that it outlives everything that schedules on it.
#include <deque>
#include <string>

#include <fmt/format.h>

#include "bifrost/net/host.h"
#include "bifrost/net/link.h"
#include "bifrost/net/switch.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/wire/headers.h"

namespace bifrost::net::testing {

inline world::Ipv4 host_ip(int i) {
  return world::Ipv4::of(10, 0, static_cast<uint8_t>(i / 250), static_cast<uint8_t>(i % 250 + 1));
}

struct Network {
  sim::EventKernel kernel;
  std::deque<Host> hosts;
  std::deque<Switch> switches;
  std::deque<Link> links;

  Host& add_host(int index) {
    HostConfig config;
    config.name = fmt::format("h{}", index);
    config.addresses = {host_ip(index)};
    return hosts.emplace_back(kernel, config);
  }
  Switch& add_switch(SwitchConfig config) {
    return switches.emplace_back(kernel, std::move(config));
  }
  Link& connect(LinkEnd a, LinkEnd b, Rate rate, Time propagation, uint64_t seed = 0) {
    LinkConfig config;
    config.rate = rate;
    config.propagation = propagation;
    config.seed = seed;
    return links.emplace_back(kernel, config, a, b);
  }
};

// A data packet of `payload` bytes as the RNIC would send it (RC WRITE middle).
inline world::PacketPtr data_packet(world::Ipv4 src, world::Ipv4 dst, uint32_t payload,
                                    int priority = 0, uint16_t src_port = 1000) {
  world::PacketPtr p = world::make_packet();
  p->src = world::Endpoint{src, src_port};
  p->dst = world::Endpoint{dst, wire::kRoceV2UdpPort};
  p->dscp = static_cast<uint8_t>(priority << 3);
  p->roce.bth.opcode = wire::Opcode::kRcWriteMiddle;
  p->payload.length = payload;
  return p;
}

}  // namespace bifrost::net::testing
