#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/core/stats.h"
#include "bifrost/sim/workload/builtin_cdfs.h"
#include "bifrost/sim/workload/flow_size_cdf.h"
#include "bifrost/sim/workload/text_file.h"
#include "support/property.h"

namespace bifrost::sim::workload {
namespace {

std::string source_dir() {
  const char* dir = std::getenv("BIFROST_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

std::string error_of(std::string_view text) {
  try {
    parse_cdf_text(text, "t.cdf");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(FlowSizeCdf, ExactMeanOfHandWorkedTable) {
  // Segments: 10% uniform on [0, 100] (mean 50), 90% uniform on [100, 200] (mean 150):
  // 0.1 * 50 + 0.9 * 150 = 140.
  const FlowSizeCdf cdf = parse_cdf_text("0 0\n100 10\n200 100\n", "t.cdf");
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 140.0);
  EXPECT_EQ(cdf.min_size(), Bytes(0));
  EXPECT_EQ(cdf.max_size(), Bytes(200));
}

TEST(FlowSizeCdf, QuantileInterpolatesLinearly) {
  const FlowSizeCdf cdf = parse_cdf_text("0 0\n100 10\n200 100\n", "t.cdf");
  EXPECT_DOUBLE_EQ(cdf.quantile(0.0), 0.0);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.05), 50.0);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.1), 100.0);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.55), 150.0);
  EXPECT_DOUBLE_EQ(cdf.quantile(1.0), 200.0);
  EXPECT_THROW(cdf.quantile(1.5), Error);
}

TEST(FlowSizeCdf, ConstantIsAPointMass) {
  const FlowSizeCdf cdf = FlowSizeCdf::constant(Bytes(4096));
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 4096.0);
  RandomStream rng(1, "t");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(cdf.sample(rng), Bytes(4096));
  EXPECT_THROW(FlowSizeCdf::constant(Bytes(0)), Error);
}

TEST(FlowSizeCdf, VerticalSegmentIsAPointMass) {
  // Half the flows are exactly 1000 bytes, the other half uniform on [1000, 3000]: mean
  // 0.5 * 1000 + 0.5 * 2000 = 1500.
  const FlowSizeCdf cdf = parse_cdf_text("1000 0\n1000 50\n3000 100\n", "t.cdf");
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 1500.0);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.25), 1000.0);
}

TEST(FlowSizeCdf, SamplesAreAtLeastOneByte) {
  const FlowSizeCdf cdf = parse_cdf_text("0 0\n2 100\n", "t.cdf");
  RandomStream rng(3, "t");
  for (int i = 0; i < 1000; ++i) {
    const Bytes b = cdf.sample(rng);
    EXPECT_GE(b, Bytes(1));
    EXPECT_LE(b, Bytes(2));
  }
}

TEST(FlowSizeCdf, BadFilesNameFileAndLine) {
  EXPECT_EQ(error_of("0 0\n# note\n\n100 50 7\n"),
            "t.cdf:4: expected two fields \"flow_size_bytes cumulative_percent\", found 3");
  EXPECT_EQ(error_of("0 0\n-5 50\n"), "t.cdf:2: flow size \"-5\" is not a whole number of bytes");
  EXPECT_EQ(error_of("0 0\n10 1e2\n"),
            "t.cdf:2: cumulative percent \"1e2\" is not a number from 0 to 100");
  EXPECT_EQ(error_of("0 0\n10 101\n"),
            "t.cdf:2: cumulative percent \"101\" is not a number from 0 to 100");
  EXPECT_EQ(error_of("0 0\n100 50\n50 100\n"),
            "t.cdf:3: size 50 is below the previous point's 100; sizes must not decrease");
  EXPECT_EQ(error_of("0 0\n100 60\n200 50\n"),
            "t.cdf:3: cumulative 50% is below the previous point's 60%; a CDF never decreases");
  EXPECT_EQ(error_of("0 0\n100 50\n100 50\n200 100\n"), "t.cdf:3: repeats the previous point");
  EXPECT_EQ(error_of("# header\n0 5\n100 100\n"),
            "t.cdf:2: the first point must be at 0%, found 5%");
  EXPECT_EQ(error_of("0 0\n100 99.5\n"), "t.cdf:2: the last point must be at 100%, found 99.5%");
  EXPECT_EQ(error_of("0 0\n9007199254740993 100\n"),
            "t.cdf:2: size 9007199254740993 is above 2^53 bytes, the largest a CDF point may have");
  EXPECT_EQ(error_of("0 0\n"),
            "t.cdf: a flow-size CDF needs at least two points (the first at 0%, the last at "
            "100%), found 1");
}

TEST(FlowSizeCdf, PointsWithoutAFileNameTheirIndex) {
  try {
    FlowSizeCdf({{0, 0.0}, {10, 0.5}}, "my table");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "my table: point 2: the last point must be at 100%, found 50%");
  }
}

TEST(BuiltinCdfs, ExactMeansMatchHandWorkedValuesAndTheDataReadme) {
  // WebSearch, segment by segment (fraction x midpoint): 0.15*5e3 + 0.05*15e3 + 0.10*25e3 +
  // 0.10*40e3 + 0.13*65e3 + 0.07*140e3 + 0.10*600e3 + 0.10*1.5e6 + 0.10*3.5e6 + 0.07*7.5e6 +
  // 0.03*20e6 = 1711250 bytes. The shared data README says "about 1.71 MB".
  const double websearch = builtin_cdf("websearch").mean_bytes();
  EXPECT_NEAR(websearch, 1711250.0, 1e-6 * 1711250.0);
  EXPECT_NEAR(websearch / 1e6, 1.71, 0.005);
  // FB_Hadoop: the same sum over its 19 segments is 120420.75 bytes; the README says "about
  // 120 KB".
  const double hadoop = builtin_cdf("fb_hadoop").mean_bytes();
  EXPECT_NEAR(hadoop, 120420.75, 1e-6 * 120420.75);
  EXPECT_NEAR(hadoop / 1e3, 120.0, 0.5);
}

TEST(BuiltinCdfs, EmbeddedTablesEqualTheDataFiles) {
  for (std::string_view name : builtin_cdf_names()) {
    const std::string path = source_dir() + "/data/workloads/" + std::string(name) + ".cdf";
    EXPECT_EQ(load_cdf_file(path).points(), builtin_cdf(name).points()) << name;
  }
}

TEST(BuiltinCdfs, TablesEqualTheSharedSourceTables) {
  // The shared copies of the published tables, when present, hold the same points.
  for (std::string_view name : builtin_cdf_names()) {
    const std::string path = "/work/shared/data/" + std::string(name) + "_cdf.txt";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not on this machine";
    EXPECT_EQ(load_cdf_file(path).points(), builtin_cdf(name).points()) << name;
  }
}

TEST(BuiltinCdfs, UnknownNameListsTheValidOnes) {
  EXPECT_EQ(find_builtin_cdf("hadoop"), nullptr);
  try {
    builtin_cdf("hadoop");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown flow-size distribution \"hadoop\"; built-in names: websearch, fb_hadoop");
  }
}

TEST(BuiltinCdfs, ResolveTakesANameOrAPath) {
  EXPECT_EQ(resolve_cdf("websearch").get(), &builtin_cdf("websearch"));
  const auto file = resolve_cdf("data/workloads/fb_hadoop.cdf", source_dir());
  EXPECT_EQ(file->points(), builtin_cdf("fb_hadoop").points());
  try {
    resolve_cdf("web", "/nonexistent");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "\"web\" is neither a built-in distribution (websearch, fb_hadoop) nor a file "
                 "(/nonexistent/web does not exist)");
  }
}

TEST(BuiltinCdfs, SampledMeanConvergesToTheExactMean) {
  // The relative standard error of a mean of n samples is cv / sqrt(n); the coefficients of
  // variation are about 2.3 (WebSearch) and 5.6 (FB_Hadoop), so 2e5 samples give 0.5% and 1.2%;
  // the bound is five standard errors.
  struct Case {
    std::string_view name;
    double cv;
  };
  for (const Case c : {Case{"websearch", 2.32}, Case{"fb_hadoop", 5.57}}) {
    const FlowSizeCdf& cdf = builtin_cdf(c.name);
    for (uint64_t seed : testing::property_seeds(3)) {
      RandomStream rng(seed, "cdf-mean");
      RunningStats stats;
      constexpr int kSamples = 200'000;
      for (int i = 0; i < kSamples; ++i) stats.add(static_cast<double>(cdf.sample(rng).count()));
      const double tolerance = 5 * c.cv / std::sqrt(double{kSamples});
      EXPECT_NEAR(stats.mean() / cdf.mean_bytes(), 1.0, tolerance) << c.name << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace bifrost::sim::workload
