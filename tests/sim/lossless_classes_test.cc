// Flow control protects the priority classes the traffic actually uses: a workload's `priority`
// key, a file workload's rows (which carry their own priority and cannot take the key) and a
// closed loop's priority. An 8:1 incast into a 1 MB buffer loses frames in any class PFC does
// not protect, so a class left out shows as drops by the dynamic threshold.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bifrost/sim/scenario/flows.h"
#include "sim/scenario_text.h"

namespace bifrost::sim {
namespace {

using testing::run;

// testing::incast_workload(priority) as bifrost flow CSV rows.
std::filesystem::path incast_csv(int priority) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bifrost_lossless_classes_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "incast.csv";
  std::ofstream out(path);
  out << "id,src,dst,size_bytes,start_ps,priority,tag\n";
  for (int src = 1; src <= 8; ++src) {
    out << src << ',' << src << ",0,500000,1000000," << priority << ",incast\n";
  }
  return path;
}

TEST(LosslessClasses, FileRowsInClassThreeArePaused) {
  const auto path = incast_csv(3);
  const auto s = run(testing::star_scenario(
      true, "[[workload]]\nkind = \"file\"\nformat = \"csv\"\npath = \"" + path.string() + "\"\n"));
  std::filesystem::remove_all(path.parent_path());
  EXPECT_EQ(s.finished, 8u);
  EXPECT_EQ(s.drops, 0u) << "class 3 of the file's rows ran lossy";
  EXPECT_GT(s.pauses, 0u) << "8 x 500 KB into a 1 MB buffer must pause";
}

TEST(LosslessClasses, WorkloadPriorityKeyIsPaused) {
  const auto s = run(testing::star_scenario(true, testing::incast_workload(5)));
  EXPECT_EQ(s.finished, 8u);
  EXPECT_EQ(s.drops, 0u);
  EXPECT_GT(s.pauses, 0u);
}

TEST(LosslessClasses, UsedPrioritiesAreTheFlowsAndTheClosedLoops) {
  scenario::Scenario sc;
  // A generator's key that made no flows protects nothing; a closed loop's requests come later.
  sc.workloads.push_back({.name = "idle", .priority = 6, .spec = scenario::PoissonWorkload{}});
  sc.workloads.push_back({.name = "rpc", .priority = 2, .spec = scenario::ClosedLoopWorkload{}});
  std::vector<workload::Flow> flows(3);
  flows[0].priority = 1;
  flows[1].priority = 3;
  flows[2].priority = 3;
  EXPECT_EQ(scenario::used_priorities(sc, flows), (1u << 1) | (1u << 2) | (1u << 3));
  EXPECT_EQ(scenario::used_priorities(scenario::Scenario{}, {}), 0u);
}

}  // namespace
}  // namespace bifrost::sim
