#include <gtest/gtest.h>

#include "bifrost/sim/workload/number_text.h"

namespace bifrost::sim::workload {
namespace {

TEST(NumberText, ParseUnsigned) {
  EXPECT_EQ(parse_unsigned("0"), 0u);
  EXPECT_EQ(parse_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_unsigned("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_unsigned(""), std::nullopt);
  EXPECT_EQ(parse_unsigned("+1"), std::nullopt);
  EXPECT_EQ(parse_unsigned("1 "), std::nullopt);
}

TEST(NumberText, ScaleDecimalIsExact) {
  const uint64_t big = UINT64_MAX;
  EXPECT_EQ(scale_decimal("2.000000500", 1'000'000'000'000, big).value, 2'000'000'500'000u);
  EXPECT_EQ(scale_decimal("0.000000001", 1'000'000'000'000, big).value, 1000u);
  EXPECT_EQ(scale_decimal("1.5", 1024, big).value, 1536u);
  EXPECT_EQ(scale_decimal("12", 1, big).value, 12u);
  EXPECT_EQ(scale_decimal("1.2500000000000000000000000", 4, big).value, 5u);
}

TEST(NumberText, ScaleDecimalRejects) {
  const uint64_t big = UINT64_MAX;
  EXPECT_EQ(scale_decimal("1.5", 1, big).status, DecimalStatus::not_whole);
  EXPECT_EQ(scale_decimal("0.1234567890123456789012", 1, big).status, DecimalStatus::not_whole);
  EXPECT_EQ(scale_decimal(".5", 10, big).status, DecimalStatus::not_a_number);
  EXPECT_EQ(scale_decimal("5.", 10, big).status, DecimalStatus::not_a_number);
  EXPECT_EQ(scale_decimal("-1", 10, big).status, DecimalStatus::not_a_number);
  EXPECT_EQ(scale_decimal("1e3", 10, big).status, DecimalStatus::not_a_number);
  EXPECT_EQ(scale_decimal("1.2.3", 10, big).status, DecimalStatus::not_a_number);
  EXPECT_EQ(scale_decimal("", 10, big).status, DecimalStatus::not_a_number);
  EXPECT_EQ(scale_decimal("10", 10, 99).status, DecimalStatus::too_large);
  EXPECT_EQ(scale_decimal("9.9", 10, 99).value, 99u);
  EXPECT_EQ(scale_decimal("99999999999999999999999", 1, big).status, DecimalStatus::too_large);
}

}  // namespace
}  // namespace bifrost::sim::workload
