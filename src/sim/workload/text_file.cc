#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::workload {

std::string read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error("cannot read {}: it is a directory", path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open {}: {}", path.string(), std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read {}", path.string());
  return std::move(text).str();
}

void write_text_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot create {}: {}", path.string(), std::strerror(errno));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw Error("cannot write {}", path.string());
}

}  // namespace bifrost::sim::workload
