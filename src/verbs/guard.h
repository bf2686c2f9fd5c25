#pragma once
// Entry points of the C ABI never let an exception out: a verbs call that fails inside the
// soft RNIC (which throws bifrost::Error with a reason) returns the errno the verb's man page
// names, and the reason goes to the log.
#include <infiniband/verbs.h>

#include <cerrno>
#include <exception>
#include <new>

#include "log.h"

#define BIFROST_VERBS_API extern "C" __attribute__((visibility("default")))

namespace bifrost::verbs {

// For verbs that return 0 or an errno value.
template <typename Body>
int errno_result(const char* verb, int code, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return ENOMEM;
  } catch (const std::exception& e) {
    log(LogLevel::warn, "{}: {}", verb, e.what());
    return code;
  }
}

// For verbs that return an object or NULL with errno set.
template <typename Body>
auto pointer_result(const char* verb, int code, Body&& body) noexcept -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
  } catch (const std::exception& e) {
    log(LogLevel::warn, "{}: {}", verb, e.what());
    errno = code;
  }
  return nullptr;
}

}  // namespace bifrost::verbs
