#pragma once
// InplaceFunction: a move-only callable wrapper with fixed inline storage. Unlike std::function
// it never allocates: a callable that does not fit is a compile error, which keeps event and
// packet hot paths free of heap traffic.
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace bifrost {

template <typename Signature, std::size_t Capacity = 48>
class InplaceFunction;

template <typename R, typename... Args, std::size_t Capacity>
class InplaceFunction<R(Args...), Capacity> {
 public:
  InplaceFunction() = default;
  InplaceFunction(std::nullptr_t) {}

  template <typename F, typename D = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<D, InplaceFunction> &&
                                        std::is_invocable_r_v<R, D&, Args...>>>
  InplaceFunction(F&& f) {  // NOLINT(google-explicit-constructor): used like std::function
    static_assert(sizeof(D) <= Capacity, "callable too large for InplaceFunction storage");
    static_assert(alignof(D) <= alignof(std::max_align_t), "callable over-aligned");
    static_assert(std::is_nothrow_move_constructible_v<D>, "callable must be nothrow-movable");
    ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    ops_ = &kOps<D>;
  }

  InplaceFunction(InplaceFunction&& o) noexcept { take(std::move(o)); }
  InplaceFunction& operator=(InplaceFunction&& o) noexcept {
    if (this != &o) {
      reset();
      take(std::move(o));
    }
    return *this;
  }
  InplaceFunction(const InplaceFunction&) = delete;
  InplaceFunction& operator=(const InplaceFunction&) = delete;
  ~InplaceFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  R operator()(Args... args) { return ops_->invoke(storage_, std::forward<Args>(args)...); }

  void reset() {
    if (ops_ && !ops_->trivial) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    R (*invoke)(void*, Args&&...);
    void (*move_to)(void* from, void* to) noexcept;
    void (*destroy)(void*) noexcept;
    // Trivially copyable callables (lambdas capturing pointers and numbers, the common case)
    // are moved with memcpy and need no destructor call: no indirect call on the hot path.
    bool trivial;
  };
  template <typename D>
  static R invoke_as(void* s, Args&&... a) {
    // A void signature discards the callable's result, as std::function does.
    if constexpr (std::is_void_v<R>) {
      (*static_cast<D*>(s))(std::forward<Args>(a)...);
    } else {
      return (*static_cast<D*>(s))(std::forward<Args>(a)...);
    }
  }
  template <typename D>
  static void move_as(void* from, void* to) noexcept {
    ::new (to) D(std::move(*static_cast<D*>(from)));
    static_cast<D*>(from)->~D();
  }
  template <typename D>
  static void destroy_as(void* s) noexcept {
    static_cast<D*>(s)->~D();
  }
  template <typename D>
  static constexpr bool kTrivial =
      std::is_trivially_copyable_v<D>&& std::is_trivially_destructible_v<D>;
  template <typename D>
  static constexpr Ops kOps{&invoke_as<D>, &move_as<D>, &destroy_as<D>, kTrivial<D>};

  void take(InplaceFunction&& o) noexcept {
    if (o.ops_) {
      if (o.ops_->trivial) {
        std::memcpy(storage_, o.storage_, Capacity);  // constant size: inlined, no call
      } else {
        o.ops_->move_to(o.storage_, storage_);
      }
      ops_ = o.ops_;
      o.ops_ = nullptr;
    }
  }

  // Zero-initialised so that the whole-capacity copy of a trivial callable reads no
  // indeterminate bytes.
  alignas(std::max_align_t) std::byte storage_[Capacity]{};
  const Ops* ops_ = nullptr;
};

}  // namespace bifrost
