#pragma once
// Bitwise | and & for scoped enums used as flag sets. An enum opts in by declaring
//   constexpr bool enable_bit_flags(MyFlags) { return true; }
// in its own namespace, so the operators never apply to enums that are not flag sets.
#include <concepts>
#include <type_traits>

namespace bifrost {

template <typename E>
concept BitFlags = std::is_enum_v<E> && requires(E e) {
  { enable_bit_flags(e) } -> std::same_as<bool>;
};

template <BitFlags E>
constexpr E operator|(E a, E b) {
  using U = std::underlying_type_t<E>;
  return static_cast<E>(static_cast<U>(a) | static_cast<U>(b));
}

template <BitFlags E>
constexpr E operator&(E a, E b) {
  using U = std::underlying_type_t<E>;
  return static_cast<E>(static_cast<U>(a) & static_cast<U>(b));
}

// True if every flag of `wanted` is set in `flags`.
template <BitFlags E>
constexpr bool has_all(E flags, E wanted) {
  return (flags & wanted) == wanted;
}

}  // namespace bifrost
