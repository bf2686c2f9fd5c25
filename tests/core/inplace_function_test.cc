#include "bifrost/core/inplace_function.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

namespace bifrost {
namespace {

// Counts live instances, so tests can see every construction matched by one destruction.
struct Counter {
  static inline int live = 0;
  static inline int calls = 0;
  Counter() { ++live; }
  Counter(const Counter&) { ++live; }
  Counter(Counter&&) noexcept { ++live; }
  ~Counter() { --live; }
  int operator()(int x) {
    ++calls;
    return x + 1;
  }
};

class InplaceFunctionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Counter::live = 0;
    Counter::calls = 0;
  }
  void TearDown() override { EXPECT_EQ(Counter::live, 0) << "a Counter leaked or died twice"; }
};

TEST_F(InplaceFunctionTest, InvokesWithArgumentsAndResult) {
  int base = 10;
  InplaceFunction<int(int, int)> add = [base](int a, int b) { return base + a + b; };
  EXPECT_EQ(add(2, 3), 15);

  std::string log;
  InplaceFunction<void(const std::string&)> append = [&log](const std::string& s) { log += s; };
  append("ab");
  append("c");
  EXPECT_EQ(log, "abc");
}

TEST_F(InplaceFunctionTest, PassesReferencesThrough) {
  InplaceFunction<void(int&)> bump = [](int& x) { x += 5; };
  int v = 1;
  bump(v);
  EXPECT_EQ(v, 6);
}

TEST_F(InplaceFunctionTest, AcceptsMoveOnlyCallablesAndArguments) {
  auto owned = std::make_unique<int>(7);
  InplaceFunction<int()> f = [p = std::move(owned)] { return *p * 2; };
  EXPECT_EQ(f(), 14);

  InplaceFunction<int(std::unique_ptr<int>)> take = [](std::unique_ptr<int> p) { return *p; };
  EXPECT_EQ(take(std::make_unique<int>(3)), 3);
}

TEST_F(InplaceFunctionTest, VoidSignatureDiscardsTheResult) {
  int calls = 0;
  InplaceFunction<void()> f = [&calls] { return ++calls; };
  f();
  f();
  EXPECT_EQ(calls, 2);
}

TEST_F(InplaceFunctionTest, EmptyIsFalse) {
  InplaceFunction<void()> a;
  InplaceFunction<void()> b = nullptr;
  EXPECT_FALSE(a);
  EXPECT_FALSE(b);
  InplaceFunction<void()> c = [] {};
  EXPECT_TRUE(c);
}

TEST_F(InplaceFunctionTest, DestroysTheCallableOnce) {
  {
    InplaceFunction<int(int)> f = Counter();
    EXPECT_EQ(Counter::live, 1);
    EXPECT_EQ(f(1), 2);
    EXPECT_EQ(Counter::calls, 1);
  }
  EXPECT_EQ(Counter::live, 0);
}

TEST_F(InplaceFunctionTest, MoveConstructionTransfersTheCallable) {
  InplaceFunction<int(int)> a = Counter();
  InplaceFunction<int(int)> b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_TRUE(b);
  EXPECT_EQ(Counter::live, 1);
  EXPECT_EQ(b(41), 42);
}

TEST_F(InplaceFunctionTest, MoveAssignmentDestroysTheOldCallable) {
  InplaceFunction<int(int)> a = Counter();
  InplaceFunction<int(int)> b = Counter();
  EXPECT_EQ(Counter::live, 2);
  b = std::move(a);
  EXPECT_EQ(Counter::live, 1);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b(0), 1);

  InplaceFunction<int(int)> empty;
  b = std::move(empty);
  EXPECT_EQ(Counter::live, 0);
  EXPECT_FALSE(b);
}

TEST_F(InplaceFunctionTest, SelfMoveAssignmentKeepsTheCallable) {
  InplaceFunction<int(int)> a = Counter();
  auto& same = a;
  a = std::move(same);
  EXPECT_TRUE(a);
  EXPECT_EQ(Counter::live, 1);
  EXPECT_EQ(a(1), 2);
}

TEST_F(InplaceFunctionTest, ResetDestroysAndEmpties) {
  InplaceFunction<int(int)> f = Counter();
  f.reset();
  EXPECT_FALSE(f);
  EXPECT_EQ(Counter::live, 0);
  f.reset();  // resetting an empty function is harmless
  EXPECT_FALSE(f);
  f = Counter();
  EXPECT_EQ(Counter::live, 1);
  EXPECT_EQ(f(2), 3);
}

TEST_F(InplaceFunctionTest, KeepsStateAcrossCalls) {
  InplaceFunction<int()> next = [n = 0]() mutable { return ++n; };
  EXPECT_EQ(next(), 1);
  EXPECT_EQ(next(), 2);
  InplaceFunction<int()> moved = std::move(next);
  EXPECT_EQ(moved(), 3);
}

TEST_F(InplaceFunctionTest, WrapsPlainFunctions) {
  InplaceFunction<int(int)> f = +[](int x) { return x * 3; };
  EXPECT_EQ(f(4), 12);
}

}  // namespace
}  // namespace bifrost
