#include "bifrost/net/routing_table.h"

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/wire/ip_udp.h"

namespace bifrost::net {

FiveTuple five_tuple(const world::Packet& packet) {
  return FiveTuple{.src_ip = packet.src.ip.value,
                   .dst_ip = packet.dst.ip.value,
                   .src_port = packet.src.port,
                   .dst_port = packet.dst.port,
                   .protocol = wire::kIpProtocolUdp};
}

uint64_t ecmp_hash(const FiveTuple& t, uint64_t seed) {
  const uint64_t addresses = (uint64_t{t.src_ip} << 32) | t.dst_ip;
  const uint64_t ports =
      (uint64_t{t.src_port} << 32) | (uint64_t{t.dst_port} << 16) | uint64_t{t.protocol};
  return mix64(mix64(addresses ^ seed) ^ ports);
}

uint32_t ecmp_member(const FiveTuple& tuple, uint64_t seed, uint32_t group_size) {
  // Multiply-shift maps the hash's top 32 bits onto [0, size) without a division.
  const uint64_t h = ecmp_hash(tuple, seed) >> 32;
  return static_cast<uint32_t>((h * group_size) >> 32);
}

std::size_t RoutingTable::FlatMap::slot_of(uint64_t key) const {
  return static_cast<std::size_t>(mix64(key)) & (entries_.size() - 1);
}

void RoutingTable::FlatMap::grow() {
  std::vector<Entry> old = std::move(entries_);
  entries_.assign(old.empty() ? 16 : old.size() * 2, Entry{});
  count_ = 0;
  for (const Entry& e : old) {
    if (e.value != kNoPort) insert(e.key, e.value);
  }
}

void RoutingTable::FlatMap::insert(uint64_t key, uint32_t value) {
  if ((count_ + 1) * 2 > entries_.size()) grow();  // load factor at most 1/2
  for (std::size_t i = slot_of(key);; i = (i + 1) & (entries_.size() - 1)) {
    Entry& e = entries_[i];
    if (e.value == kNoPort) {
      e = Entry{key, value};
      ++count_;
      return;
    }
    if (e.key == key) {
      e.value = value;
      return;
    }
  }
}

uint32_t RoutingTable::FlatMap::find(uint64_t key) const {
  if (entries_.empty()) return kNoPort;
  for (std::size_t i = slot_of(key);; i = (i + 1) & (entries_.size() - 1)) {
    const Entry& e = entries_[i];
    if (e.value == kNoPort) return kNoPort;
    if (e.key == key) return e.value;
  }
}

uint32_t RoutingTable::add_group(const std::vector<uint32_t>& ports) {
  if (ports.empty()) throw Error("a route needs at least one egress port");
  for (uint32_t p : ports) {
    if (p == kNoPort) throw Error("{} is not a port number", p);
  }
  const auto [known, inserted] =
      group_of_ports_.try_emplace(ports, static_cast<uint32_t>(groups_.size()));
  if (!inserted) return known->second;
  const uint32_t group = known->second;
  groups_.push_back(
      Group{static_cast<uint32_t>(members_.size()), static_cast<uint32_t>(ports.size())});
  members_.insert(members_.end(), ports.begin(), ports.end());
  return group;
}

void RoutingTable::add_route(world::Ipv4 dst, const std::vector<uint32_t>& ports) {
  by_destination_.insert(dst.value, add_group(ports));
}

void RoutingTable::set_default_route(const std::vector<uint32_t>& ports) {
  default_group_ = add_group(ports);
}

void RoutingTable::add_static_route(world::Ipv4 src, world::Ipv4 dst, uint32_t port) {
  if (port == kNoPort) throw Error("{} is not a port number", port);
  by_pair_.insert((uint64_t{src.value} << 32) | dst.value, port);
}

uint32_t RoutingTable::pick(uint32_t group, const world::Packet& packet, uint64_t seed) const {
  const Group& g = groups_[group];
  if (g.size == 1) return members_[g.offset];
  return members_[g.offset + ecmp_member(five_tuple(packet), seed, g.size)];
}

uint32_t RoutingTable::lookup(const world::Packet& packet, uint64_t seed) const {
  if (!by_pair_.empty()) {
    const uint32_t port =
        by_pair_.find((uint64_t{packet.src.ip.value} << 32) | packet.dst.ip.value);
    if (port != kNoPort) return port;
  }
  uint32_t group = by_destination_.find(packet.dst.ip.value);
  if (group == kNoPort) group = default_group_;
  if (group == kNoPort) return kNoPort;
  return pick(group, packet, seed);
}

std::vector<uint32_t> RoutingTable::ports_for(world::Ipv4 dst) const {
  uint32_t group = by_destination_.find(dst.value);
  if (group == kNoPort) group = default_group_;
  if (group == kNoPort) return {};
  const Group& g = groups_[group];
  return {members_.begin() + g.offset, members_.begin() + g.offset + g.size};
}

}  // namespace bifrost::net
