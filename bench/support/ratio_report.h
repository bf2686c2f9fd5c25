#pragma once
// Runs the registered Google Benchmarks and then prints, for every benchmark named
// "<group>/<variant>/<arg>", its throughput as a ratio to "<group>/baseline/<arg>" measured in
// the same run. Absolute numbers on shared machines drift; ratios within one run do not.
#include <benchmark/benchmark.h>

namespace bifrost::bench {

// Use in place of BENCHMARK_MAIN(): int main(int argc, char** argv) { return run(argc, argv); }
int run_with_ratios(int argc, char** argv);

}  // namespace bifrost::bench
