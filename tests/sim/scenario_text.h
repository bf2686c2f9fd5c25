#pragma once
// Scenario tests written as TOML text: parse it as a file would be, or run it quietly.
#include <filesystem>
#include <string>

#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"

namespace bifrost::sim::testing {

inline scenario::Scenario parse(const std::string& text) {
  return scenario::parse_scenario(text, "test.toml", std::filesystem::current_path());
}

inline RunSummary run(const std::string& text) {
  RunOptions options;
  options.progress = nullptr;
  return run_scenario(parse(text), options);
}

}  // namespace bifrost::sim::testing
