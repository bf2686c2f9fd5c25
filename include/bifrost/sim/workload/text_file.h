#pragma once
// Whole-file text input and output for the readers and writers of workload and result files.
#include <filesystem>
#include <string>
#include <string_view>

namespace bifrost::sim::workload {

// Throws Error naming the path (and the system's reason) when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);
// Creates or truncates `path`; throws Error naming the path when it cannot be written.
void write_text_file(const std::filesystem::path& path, std::string_view text);

}  // namespace bifrost::sim::workload
