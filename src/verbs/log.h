#pragma once
// Messages to stderr, prefixed "bifrost-verbs:", at or above BIFROST_VERBS_LOG's level.
#include <fmt/format.h>

#include <cstdio>

#include "config.h"

namespace bifrost::verbs {

// The level in force (set when the library reads its configuration; warn before that).
LogLevel& log_level();

template <typename... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (level > log_level()) return;
  static constexpr const char* kNames[] = {"error", "warn", "info", "debug"};
  fmt::print(stderr, "bifrost-verbs: {}: {}\n", kNames[static_cast<int>(level)],
             fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace bifrost::verbs
