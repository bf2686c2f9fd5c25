#pragma once
// Forwarding decisions of a switch. A destination address maps to a group of equal-cost egress
// ports, and a packet takes the member its 5-tuple hashes to under the switch's seed: one flow
// keeps one path, and a new UDP source port usually moves it. A static route for a (source
// address, destination address) pair overrides ECMP, which is how multi-path transports pin a
// path by source address. Look-ups are integer hash probes; nothing allocates.
#include <cstdint>
#include <map>
#include <vector>

#include "bifrost/world/address.h"
#include "bifrost/world/packet.h"

namespace bifrost::net {

inline constexpr uint32_t kNoPort = UINT32_MAX;  // lookup() found no route

struct FiveTuple {
  uint32_t src_ip = 0;
  uint32_t dst_ip = 0;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint8_t protocol = 17;  // UDP
};

FiveTuple five_tuple(const world::Packet& packet);
// A well-mixed 64-bit hash of the 5-tuple under `seed`.
uint64_t ecmp_hash(const FiveTuple& tuple, uint64_t seed);
// Which member [0, group_size) of an equal-cost group a packet with `tuple` takes at a switch
// seeded `seed`: the known hash a sender may use to predict (and choose) its path.
uint32_t ecmp_member(const FiveTuple& tuple, uint64_t seed, uint32_t group_size);

class RoutingTable {
 public:
  // Replaces the route to `dst`. Throws Error for an empty port list.
  void add_route(world::Ipv4 dst, const std::vector<uint32_t>& ports);
  // Used when no route matches the destination.
  void set_default_route(const std::vector<uint32_t>& ports);
  void add_static_route(world::Ipv4 src, world::Ipv4 dst, uint32_t port);
  std::size_t static_route_count() const { return by_pair_.size(); }

  // The egress port for `packet` or kNoPort.
  uint32_t lookup(const world::Packet& packet, uint64_t seed) const;
  // The ECMP group for `dst`, empty if none (default route included).
  std::vector<uint32_t> ports_for(world::Ipv4 dst) const;

 private:
  // Open addressing with linear probing, 64-bit keys; values index groups_ or are ports.
  class FlatMap {
   public:
    void insert(uint64_t key, uint32_t value);
    uint32_t find(uint64_t key) const;  // kNoPort if absent
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }

   private:
    struct Entry {
      uint64_t key = 0;
      uint32_t value = kNoPort;
    };
    std::size_t slot_of(uint64_t key) const;
    void grow();
    std::vector<Entry> entries_;
    std::size_t count_ = 0;
  };
  struct Group {
    uint32_t offset = 0;
    uint32_t size = 0;
  };
  uint32_t add_group(const std::vector<uint32_t>& ports);
  uint32_t pick(uint32_t group, const world::Packet& packet, uint64_t seed) const;

  FlatMap by_destination_;
  FlatMap by_pair_;
  std::vector<Group> groups_;
  // Port sets already stored, so equal ECMP groups share one entry (construction only).
  std::map<std::vector<uint32_t>, uint32_t> group_of_ports_;
  std::vector<uint32_t> members_;
  uint32_t default_group_ = kNoPort;
};

}  // namespace bifrost::net
