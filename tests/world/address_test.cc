#include "bifrost/world/address.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"

namespace bifrost::world {
namespace {

TEST(Ipv4, ParsesAndPrintsDottedQuad) {
  EXPECT_EQ(parse_ipv4("10.0.0.1"), Ipv4::of(10, 0, 0, 1));
  EXPECT_EQ(parse_ipv4("255.255.255.255").value, 0xFFFFFFFFu);
  EXPECT_EQ(to_string(Ipv4::of(192, 168, 1, 20)), "192.168.1.20");
  EXPECT_EQ(to_string(Endpoint{Ipv4::of(10, 1, 2, 3), 4791}), "10.1.2.3:4791");
}

TEST(Ipv4, RejectsMalformedTextWithItsName) {
  for (const char* bad : {"", "10.0.0", "10.0.0.256", "10.0.0.1.2", "a.b.c.d", "10..0.1",
                          "10.0.0.1 ", "1000.0.0.1"}) {
    try {
      parse_ipv4(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace bifrost::world
