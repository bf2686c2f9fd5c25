// Bifröst's send path allocates nothing per WQE once warm (issue 19). A closed loop of messages
// runs thousands of WQEs on a two-host world after a warm-up while every operator new is
// counted and attributed, from its backtrace, to the innermost frame that is not the standard
// library's: the Sender's own code (a deque or hash map growing inside a Sender method counts
// as the Sender's) or the rest of the world (the soft RNIC's queues and the memory model
// allocate as they please: they stand for hardware). The test needs -rdynamic for the names.
#include <cxxabi.h>
#include <execinfo.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

#include "bifrost/sim/transport_pair.h"

namespace {

struct Counts {
  uint64_t all = 0;
  uint64_t sender = 0;     // innermost non-std frame in bifrost::transport::Sender
  uint64_t transport = 0;  // elsewhere in bifrost::transport (the receiver, the endpoint)
  uint64_t rnic = 0;       // in bifrost::rnic
};

Counts g_counts;
bool g_attributing = false;
thread_local bool t_inside = false;

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (name.starts_with(p)) return true;
  }
  return false;
}

// The mangled name in a backtrace_symbols line "binary(name+0x12) [0x...]", or "".
std::string_view mangled(const char* line) {
  const char* open = std::strchr(line, '(');
  if (open == nullptr) return {};
  const char* end = open + 1;
  while (*end != '\0' && *end != '+' && *end != ')') ++end;
  return {open + 1, static_cast<size_t>(end - open - 1)};
}

void attribute() {
  void* frames[48];
  const int n = backtrace(frames, 48);
  char** lines = backtrace_symbols(frames, n);  // malloc, not operator new
  if (lines == nullptr) return;
  for (int i = 0; i < n; ++i) {
    const std::string_view name = mangled(lines[i]);
    // Unnamed frames (internal linkage) and the standard library's are skipped: an allocation
    // in a std container inlined into a Sender method is the Sender's.
    if (name.empty() || name == "_Znwm" || name == "_Znam" || name == "_ZnwmRKSt9nothrow_t" ||
        starts_with_any(
            name, {"_ZNSt", "_ZNKSt", "_ZSt", "_ZN9__gnu_cxx", "_ZNK9__gnu_cxx", "backtrace",
                   "__libc", "_ZN7bifrost15InplaceFunction", "_ZNK7bifrost15InplaceFunction"})) {
      continue;
    }
    if (starts_with_any(name, {"_ZN7bifrost9transport6Sender", "_ZNK7bifrost9transport6Sender",
                               "_ZZN7bifrost9transport6Sender"})) {
      ++g_counts.sender;
    } else if (name.find("7bifrost9transport") != std::string_view::npos) {
      ++g_counts.transport;
    } else if (name.find("7bifrost4rnic") != std::string_view::npos) {
      ++g_counts.rnic;
    }
    break;
  }
  std::free(lines);
}

void* counted(std::size_t size) {
  if (!t_inside) {
    t_inside = true;
    ++g_counts.all;
    if (g_attributing) attribute();
    t_inside = false;
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) {
  return counted(size);
}
void* operator new[](std::size_t size) {
  return counted(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

// Stands for a soft RNIC function in the attribution check (external linkage: a named frame).
namespace bifrost::rnic {
[[gnu::noinline]] std::vector<int>* testing_allocate() {
  return new std::vector<int>(100);
}
}  // namespace bifrost::rnic

namespace bifrost::transport {
namespace {

constexpr uint64_t kDepth = 32;  // messages outstanding at any time

// Side 0 keeps kDepth messages of `length` bytes outstanding to side 1, sending the next one
// from each completion, until `total` have completed.
struct ClosedLoop {
  sim::TransportPair& pair;
  uint64_t length;
  uint64_t sent = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t total = 0;

  void send_one() {
    sim::TransportPair::Side& s = pair.side(0);
    const uint64_t slot = sent++ % kDepth;
    const uint64_t addr = sim::TransportPair::kAppBase + slot * ((length + 4095) / 4096 * 4096);
    s.connection->send(MessageBuffer{.region = s.app_region, .addr = addr, .length = length},
                       [this](const SendCompletion& c) {
                         ++completed;
                         if (c.status != SendStatus::delivered) ++failed;
                         if (sent < total) send_one();
                       });
  }
  void run_to(uint64_t until) {
    total = until;
    while (sent < total && sent - completed < kDepth) send_one();
    const Time limit = pair.kernel().now() + Time::ms(10000);
    while (completed < total && pair.kernel().now() < limit) {
      pair.kernel().run_until(pair.kernel().now() + Time::us(100));
    }
  }
};

// Runs `warm_up` messages of `length` bytes, then counts allocations over `measured` more.
Counts measure(Reliability reliability, uint64_t length, uint64_t warm_up, uint64_t measured) {
  sim::TransportPairConfig c;
  c.transport.reliability = reliability;
  c.wire.delay = Time::us(2);
  sim::TransportPair pair(c);
  uint64_t delivered = 0;
  pair.side(1).connection->set_delivery_handler([&delivered](const Delivery&) { ++delivered; });
  ClosedLoop loop{.pair = pair, .length = length};
  loop.run_to(warm_up);
  EXPECT_EQ(loop.completed, warm_up);
  const uint64_t wqes_before = pair.side(0).connection->sender_stats().wqes_posted;
  const Counts before = g_counts;
  g_attributing = true;
  loop.run_to(warm_up + measured);
  g_attributing = false;
  Counts m;
  m.all = g_counts.all - before.all;
  m.sender = g_counts.sender - before.sender;
  m.transport = g_counts.transport - before.transport;
  m.rnic = g_counts.rnic - before.rnic;
  const uint64_t wqes = pair.side(0).connection->sender_stats().wqes_posted - wqes_before;
  EXPECT_EQ(loop.completed, warm_up + measured);
  EXPECT_EQ(loop.failed, 0u);
  EXPECT_EQ(delivered, warm_up + measured);
  EXPECT_GE(wqes, measured);
  std::printf(
      "%s, %llu B: %llu WQEs, allocations: %llu in all, %llu Sender, %llu rest of the "
      "transport, %llu soft RNIC\n",
      reliability == Reliability::hardware_rc ? "RC" : "UC",
      static_cast<unsigned long long>(length), static_cast<unsigned long long>(wqes),
      static_cast<unsigned long long>(m.all), static_cast<unsigned long long>(m.sender),
      static_cast<unsigned long long>(m.transport), static_cast<unsigned long long>(m.rnic));
  return m;
}

TEST(SenderAllocation, TheCountAttributesAnAllocationToItsCaller) {
  const Counts before = g_counts;
  g_attributing = true;
  std::vector<int>* v = rnic::testing_allocate();
  g_attributing = false;
  delete v;
  EXPECT_EQ(g_counts.all - before.all, 2u);  // the vector and its buffer
  EXPECT_EQ(g_counts.rnic - before.rnic, 2u) << "backtraces carry no names (-rdynamic?)";
  EXPECT_EQ(g_counts.sender - before.sender, 0u);
}

TEST(SenderAllocation, SmallMessagesAllocateNothingInTheSenderOnceWarm) {
  for (const Reliability r : {Reliability::software_uc, Reliability::hardware_rc}) {
    EXPECT_EQ(measure(r, 1024, 2000, 3000).sender, 0u);
  }
}

TEST(SenderAllocation, ChunkedMessagesAllocateNothingInTheSenderOnceWarm) {
  // Past send_threshold: a write request, a grant, then WRITE_WITH_IMM chunks.
  for (const Reliability r : {Reliability::software_uc, Reliability::hardware_rc}) {
    EXPECT_EQ(measure(r, 128 * 1024, 300, 300).sender, 0u);
  }
}

}  // namespace
}  // namespace bifrost::transport
