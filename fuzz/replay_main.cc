// Runs every file under the given directories (or the given files) through the fuzz target's
// LLVMFuzzerTestOneInput once, so a saved corpus doubles as a regression test with any
// compiler. Exits non-zero if it finds no inputs.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

void replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::vector<uint8_t> bytes(chars.begin(), chars.end());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        replay(entry.path());
        ++inputs;
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      replay(arg);
      ++inputs;
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs == 0) {
    std::fprintf(stderr, "replay: no inputs found (usage: %s DIR_OR_FILE...)\n", argv[0]);
    return 1;
  }
  std::printf("replay: %zu inputs ran cleanly\n", inputs);
  return 0;
}
