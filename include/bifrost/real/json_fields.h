#pragma once
// Checked reads of JSON a peer sent (the bootstrap, bifrost-perf's results). nlohmann's
// get<uint32_t>() converts a float or an out-of-range number silently (undefined behaviour for
// 1e100), and a peer controls these bytes: every integer field must be an integer JSON number
// within its type's range, or the message is refused with the field's name.
#include <nlohmann/json.hpp>

#include <concepts>
#include <limits>

#include "bifrost/core/error.h"

namespace bifrost::real {

template <std::integral T>
T integer_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json& v = object.at(key);
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<int64_t>();
    if (std::numeric_limits<T>::is_signed &&
        i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
        i <= static_cast<int64_t>(std::numeric_limits<T>::max())) {
      return static_cast<T>(i);
    }
  } else {
    throw Error("{} must be an integer, not {}", key, v.dump());
  }
  throw Error("{} {} is out of range", key, v.dump());
}

}  // namespace bifrost::real
