#pragma once
// The one error type for user-facing failures (bad flags, bad scenario files, impossible
// configurations). Its message must tell the user what was wrong and what would be right.
#include <fmt/core.h>

#include <stdexcept>
#include <string>

namespace bifrost {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}

  template <typename... Args>
  explicit Error(fmt::format_string<Args...> format, Args&&... args)
      : std::runtime_error(fmt::format(format, std::forward<Args>(args)...)) {}
};

}  // namespace bifrost
