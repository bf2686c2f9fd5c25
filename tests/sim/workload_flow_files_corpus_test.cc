// Runs the flow-file fuzz target's saved corpus through the target itself, so the harness
// compiles with the project's warnings and every corpus file stays a regression test.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "bifrost/sim/workload/text_file.h"

int fuzz_flow_files(const uint8_t* data, std::size_t size);

namespace bifrost::sim::workload {
namespace {

TEST(FlowFilesCorpus, EveryFileRunsCleanly) {
  const char* root = std::getenv("BIFROST_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "BIFROST_SOURCE_DIR is set by CTest";
  const auto dir = std::filesystem::path(root) / "fuzz" / "corpus" / "flow_files";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string text = read_text_file(entry.path());
    EXPECT_EQ(fuzz_flow_files(reinterpret_cast<const uint8_t*>(text.data()), text.size()), 0);
    ++files;
  }
  EXPECT_GE(files, 5);
}

}  // namespace
}  // namespace bifrost::sim::workload
