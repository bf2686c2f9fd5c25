#include "bifrost/core/error.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace bifrost {
namespace {

TEST(Error, FormatsItsArguments) {
  const Error e("link rate {} Gb/s is not in [{}, {}]", 7.5, 1, 400);
  EXPECT_STREQ(e.what(), "link rate 7.5 Gb/s is not in [1, 400]");
}

TEST(Error, FormatSpecsApply) {
  const Error e("seed {:#x}, loss {:.2f}%, name '{}'", 255, 0.333, std::string("sw1"));
  EXPECT_STREQ(e.what(), "seed 0xff, loss 0.33%, name 'sw1'");
}

TEST(Error, PlainStringIsTakenVerbatim) {
  // A ready-made message is not a format string: its braces stay as they are.
  const std::string message = "unexpected '{' in scenario";
  EXPECT_STREQ(Error(message).what(), "unexpected '{' in scenario");
  EXPECT_STREQ(Error("no arguments").what(), "no arguments");
}

TEST(Error, IsARuntimeError) {
  try {
    throw Error("queue {} overflowed", 3);
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "queue 3 overflowed");
    return;
  }
  FAIL() << "Error was not caught as std::runtime_error";
}

}  // namespace
}  // namespace bifrost
