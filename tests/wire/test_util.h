#pragma once
// Helpers shared by the wire tests: scratch files, byte conversions and running external tools.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace bifrost::wire::test {

// A fresh directory under the system temp dir, named after the running test; removed by the
// destructor so failed runs do not litter.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::filesystem::path path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // standard output only
};

// Runs `command` through /bin/sh and captures its standard output.
CommandResult run_command(const std::string& command);
// True if `program` is an executable on PATH.
bool on_path(const std::string& program);
// The repository root (BIFROST_SOURCE_DIR, set by bifrost_add_test).
std::filesystem::path source_dir();

std::vector<std::byte> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<std::byte>& bytes);
std::vector<std::byte> bytes_of(std::initializer_list<int> values);
std::vector<std::byte> hex_bytes(const std::string& hex);  // whitespace is ignored
std::string quote(const std::string& text);                // single-quoted for /bin/sh

}  // namespace bifrost::wire::test
