// The GID table model: IPv4-mapped RoCE v2 GIDs of the namespace's addresses, loopback last,
// and the RoCE MTU an interface MTU allows.
#include "bifrost/real/gid_table.h"

#include "bifrost/core/error.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace bifrost::real {
namespace {

TEST(GidTable, Ipv4MappedGidRoundTrips) {
  const world::Ipv4 ip = world::Ipv4::of(10, 77, 0, 2);
  const Gid gid = ipv4_mapped_gid(ip);
  const Gid expected = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 77, 0, 2};
  EXPECT_EQ(gid, expected);
  EXPECT_EQ(ipv4_of_gid(gid), ip);
  Gid link_local{};
  link_local[0] = 0xFE;
  link_local[1] = 0x80;
  EXPECT_EQ(ipv4_of_gid(link_local), std::nullopt);
}

TEST(GidTable, RoceMtuFitsTheInterface) {
  EXPECT_EQ(roce_mtu_for_interface(9000), 4096u);
  EXPECT_EQ(roce_mtu_for_interface(4096 + 128), 4096u);
  EXPECT_EQ(roce_mtu_for_interface(4096 + 127), 2048u);
  EXPECT_EQ(roce_mtu_for_interface(1500), 1024u);
  EXPECT_EQ(roce_mtu_for_interface(576), 256u);
}

TEST(GidTable, InterfacesListLoopbackLast) {
  const std::vector<GidEntry> table = interface_gid_table();
  ASSERT_FALSE(table.empty());  // lo is up in every namespace the tests run in
  const auto is_loopback = [](const GidEntry& e) { return (e.ip.value >> 24) == 127; };
  EXPECT_TRUE(std::is_partitioned(table.begin(), table.end(),
                                  [&](const GidEntry& e) { return !is_loopback(e); }));
  const auto lo = std::find_if(table.begin(), table.end(), is_loopback);
  ASSERT_NE(lo, table.end());
  EXPECT_EQ(lo->interface, "lo");
  EXPECT_GT(lo->ifindex, 0u);
  EXPECT_GE(lo->interface_mtu, 1500u);
}

TEST(GidTable, ChosenAddressesKeepTheirOrderAndFindTheirInterface) {
  const std::vector<GidEntry> table =
      gid_table_of({world::Ipv4::of(192, 0, 2, 200), world::Ipv4::of(127, 0, 0, 1)});
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].ip, world::Ipv4::of(192, 0, 2, 200));
  EXPECT_EQ(table[0].ifindex, 0u);  // not configured here
  EXPECT_EQ(table[1].interface, "lo");
}

TEST(GidTable, MultipathGidsPutTheLocalAddressFirstAndNameWhatIsMissing) {
  const world::Ipv4 local = world::Ipv4::of(127, 0, 0, 1);
  const std::vector<world::Ipv4> none = multipath_gids(local, 0);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0], local);
  // Never loopback, never the local address twice: far more aliases than any namespace has.
  try {
    multipath_gids(local, 60);
    FAIL() << "found 60 aliases";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("60 paths need 60 addresses besides 127.0.0.1"),
              std::string::npos)
        << e.what();
  }
  size_t others = 0;
  for (const GidEntry& e : interface_gid_table()) others += (e.ip.value >> 24) != 127;
  if (others == 0) return;
  const std::vector<world::Ipv4> one = multipath_gids(local, 1);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_NE(one[1].value >> 24, 127u);
}

}  // namespace
}  // namespace bifrost::real
