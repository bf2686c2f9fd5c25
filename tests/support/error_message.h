#pragma once
// The message of the bifrost::Error a call throws, or "no error": lets a test compare the exact
// text users will see.
#include <string>

#include "bifrost/core/error.h"

namespace bifrost::testing {

template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace bifrost::testing
