#pragma once
// bifrost-rnic-loss's outputs: the table on stdout, JSON and CSV files.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "scenario.h"

namespace bifrost::rnic_loss {

nlohmann::json to_json(const Result& r);
nlohmann::json scenario_json(const Options& o);
// Throws Error when the file cannot be written.
void write_csv(const std::string& path, const Options& o, const std::vector<Result>& results);
void print_table(const std::vector<Result>& results);

}  // namespace bifrost::rnic_loss
