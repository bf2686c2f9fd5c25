// Runs tools/plot/bifrost_plot.py on result files written by the metrics writers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bifrost/sim/metrics/writers.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::metrics {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";

class PlotScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kPython)) GTEST_SKIP() << kPython << " is not installed";
    const char* root = std::getenv("BIFROST_SOURCE_DIR");
    ASSERT_NE(root, nullptr) << "BIFROST_SOURCE_DIR is set by CTest";
    script_ = fs::path(root) / "tools" / "plot" / "bifrost_plot.py";
    dir_ = fs::temp_directory_path() / ("bifrost_plot_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Exit status of the script with `args`; its output goes to dir_/log.txt.
  int run(const std::string& args) {
    const std::string command = "MPLCONFIGDIR='" + (dir_ / "mpl").string() + "' " + kPython + " '" +
                                script_.string() + "' " + args + " > '" +
                                (dir_ / "log.txt").string() + "' 2>&1";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string log() { return workload::read_text_file(dir_ / "log.txt"); }

  fs::path script_;
  fs::path dir_;
};

RunMetrics synthetic_run() {
  RunMetrics m;
  m.flows = FlowMetrics(SizeBuckets::standard(), {50, 99});
  for (uint64_t i = 0; i < 200; ++i) {
    const uint64_t size = 1'000 * (1 + i * i);
    const Time ideal = Time::ns(static_cast<int64_t>(size / 10));
    const Time start = Time::us(static_cast<int64_t>(i));
    m.flows.add({i, 0, 1, Bytes(size), start, start + ideal * static_cast<int64_t>(1 + i % 7),
                 ideal, "synthetic"});
  }
  const uint32_t link = m.throughput.add_link("bottleneck");
  const uint32_t queue = m.queues.add_queue("sw0/p1");
  for (int64_t t = 0; t <= 100; ++t) {
    m.throughput.sample(link, Time::us(t), Bytes(static_cast<uint64_t>(t * t) * 10'000));
    m.queues.sample(queue, Time::us(t), Bytes(static_cast<uint64_t>((t * 37) % 100) * 1'000));
  }
  return m;
}

TEST_F(PlotScript, WritesEveryFigure) {
  const fs::path out = dir_ / "out";
  write_outputs(synthetic_run(), RunInfo{"synthetic", 1, Time::us(100), std::nullopt}, out);
  ASSERT_EQ(run("'" + out.string() + "'"), 0) << log();
  for (const char* png :
       {"fct_slowdown_by_size.png", "fct_cdf.png", "throughput.png", "queues.png"}) {
    ASSERT_TRUE(fs::exists(out / png)) << png;
    EXPECT_GT(fs::file_size(out / png), 1000u) << png;
  }
}

TEST_F(PlotScript, RunWithoutSamplesStillPlots) {
  const fs::path out = dir_ / "empty";
  write_outputs(RunMetrics{}, RunInfo{"empty", 1, Time::us(1), std::nullopt}, out);
  ASSERT_EQ(run("'" + out.string() + "' --out '" + (dir_ / "png").string() + "'"), 0) << log();
  EXPECT_GT(fs::file_size(dir_ / "png" / "queues.png"), 0u);
}

TEST_F(PlotScript, MissingFilesAreAClearError) {
  const fs::path out = dir_ / "partial";
  fs::create_directories(out);
  workload::write_text_file(out / "flows.csv", "id\n");
  EXPECT_EQ(run("'" + out.string() + "'"), 2);
  EXPECT_EQ(log(), "bifrost_plot: " + out.string() +
                       " lacks fct_by_size.csv, throughput.csv, queues.csv; expected the output "
                       "folder of `bifrost-sim run scenario.toml --out DIR`\n");
}

TEST_F(PlotScript, HelpExplainsTheInputs) {
  ASSERT_EQ(run("--help"), 0);
  EXPECT_NE(log().find("usage: bifrost_plot.py"), std::string::npos) << log();
  EXPECT_NE(log().find("--out OUT"), std::string::npos) << log();
}

}  // namespace
}  // namespace bifrost::sim::metrics
