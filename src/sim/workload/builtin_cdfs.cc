#include "bifrost/sim/workload/builtin_cdfs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "bifrost/core/error.h"
#include "builtin_cdf_text.h"

namespace bifrost::sim::workload {

namespace {
constexpr std::array<std::string_view, 2> kNames = {"websearch", "fb_hadoop"};
}  // namespace

std::span<const std::string_view> builtin_cdf_names() {
  return kNames;
}

const FlowSizeCdf* find_builtin_cdf(std::string_view name) {
  // Parsed on first use; function-local statics make that thread-safe.
  if (name == "websearch") {
    static const FlowSizeCdf cdf =
        parse_cdf_text(detail::kWebSearchCdfText, "data/workloads/websearch.cdf");
    return &cdf;
  }
  if (name == "fb_hadoop") {
    static const FlowSizeCdf cdf =
        parse_cdf_text(detail::kFbHadoopCdfText, "data/workloads/fb_hadoop.cdf");
    return &cdf;
  }
  return nullptr;
}

const FlowSizeCdf& builtin_cdf(std::string_view name) {
  if (const FlowSizeCdf* cdf = find_builtin_cdf(name)) return *cdf;
  throw Error("unknown flow-size distribution \"{}\"; built-in names: {}", name,
              fmt::join(kNames, ", "));
}

std::shared_ptr<const FlowSizeCdf> resolve_cdf(std::string_view name_or_path,
                                               const std::filesystem::path& base_dir) {
  if (const FlowSizeCdf* cdf = find_builtin_cdf(name_or_path)) {
    // The built-ins live as long as the program; the pointer does not own them.
    return std::shared_ptr<const FlowSizeCdf>(cdf, [](const FlowSizeCdf*) {});
  }
  const std::filesystem::path path = base_dir / name_or_path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error("\"{}\" is neither a built-in distribution ({}) nor a file ({} does not exist)",
                name_or_path, fmt::join(kNames, ", "), path.string());
  }
  return std::make_shared<const FlowSizeCdf>(load_cdf_file(path));
}

}  // namespace bifrost::sim::workload
