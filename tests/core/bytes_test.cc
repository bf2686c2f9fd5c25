#include "bifrost/core/bytes.h"

#include <gtest/gtest.h>

namespace bifrost {
namespace {

using namespace bifrost::literals;

TEST(Bytes, CountsAndBits) {
  EXPECT_EQ(Bytes().count(), 0u);
  EXPECT_EQ(Bytes(1'500).count(), 1'500u);
  EXPECT_EQ(Bytes(1'500).bits(), 12'000u);
}

TEST(Bytes, BinaryUnits) {
  EXPECT_EQ(Bytes::KiB(3).count(), 3'072u);
  EXPECT_EQ(Bytes::MiB(2).count(), 2'097'152u);
  EXPECT_EQ(Bytes::GiB(5).count(), 5'368'709'120u);
}

TEST(Bytes, Literals) {
  EXPECT_EQ((64_B).count(), 64u);
  EXPECT_EQ((4_KiB).count(), 4'096u);
  EXPECT_EQ((1_MiB).count(), 1'048'576u);
  static_assert(1_KiB == 1'024_B);
}

TEST(Bytes, AddsMultipliesDivides) {
  EXPECT_EQ(Bytes(100) + Bytes(28), Bytes(128));
  EXPECT_EQ(Bytes(100) * 3, Bytes(300));
  EXPECT_EQ(Bytes(100) / 3, Bytes(33));
  Bytes b(10);
  b += Bytes(5);
  EXPECT_EQ(b, Bytes(15));
}

TEST(Bytes, SubtractionSaturatesAtZero) {
  EXPECT_EQ(Bytes(10) - Bytes(3), Bytes(7));
  EXPECT_EQ(Bytes(10) - Bytes(10), Bytes(0));
  EXPECT_EQ(Bytes(3) - Bytes(10), Bytes(0));
  Bytes b(5);
  b -= Bytes(2);
  EXPECT_EQ(b, Bytes(3));
  b -= Bytes(4);
  EXPECT_EQ(b, Bytes(0));
}

TEST(Bytes, Compares) {
  EXPECT_LT(Bytes(1), Bytes(2));
  EXPECT_GE(Bytes(2), Bytes(2));
  EXPECT_NE(Bytes(2), Bytes(3));
}

}  // namespace
}  // namespace bifrost
