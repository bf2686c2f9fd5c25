#pragma once
// The usual visitor helper for std::visit: one lambda per alternative of a variant.

namespace bifrost {

template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace bifrost
