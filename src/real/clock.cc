#include "bifrost/real/clock.h"

#include <sys/resource.h>
#include <time.h>

namespace bifrost::real {
namespace {

int64_t read_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

Time monotonic_now() {
  return Time::ns(read_ns(CLOCK_MONOTONIC));
}

int64_t realtime_minus_monotonic_ns() {
  // Bracketing the realtime read by two monotonic reads halves the error of a preemption.
  const int64_t m1 = read_ns(CLOCK_MONOTONIC);
  const int64_t r = read_ns(CLOCK_REALTIME);
  const int64_t m2 = read_ns(CLOCK_MONOTONIC);
  return r - (m1 + (m2 - m1) / 2);
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace bifrost::real
