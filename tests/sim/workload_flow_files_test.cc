#include <gtest/gtest.h>

#include <filesystem>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/flow_files.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::workload {
namespace {

using Parser = std::vector<Flow> (*)(std::string_view, std::string_view, const FlowFileOptions&);

std::string error_of(Parser parse, std::string_view text, const FlowFileOptions& options = {}) {
  try {
    parse(text, "f", options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(HtsimFlows, ParsesTheConnectionMatrix) {
  const auto flows = parse_htsim_flows(
      "# incast\nNodes 16\nConnections 3\n"
      "0->15 start 0 size 2000000\n"
      "1->15 id 2 start 1500000 size 100 prio 3\n"
      "2->15  size 7\tstart 2000000\n",
      "f");
  ASSERT_EQ(flows.size(), 3u);
  EXPECT_EQ(flows[0], (Flow{0, 0, 15, Bytes(2'000'000), Time::zero(), 0, ""}));
  EXPECT_EQ(flows[1], (Flow{1, 1, 15, Bytes(100), Time::ns(1500), 3, ""}));
  EXPECT_EQ(flows[2].start, Time::us(2));
  EXPECT_EQ(flows[2].size, Bytes(7));
}

TEST(HtsimFlows, MicrosecondFilesFromHtsimSave) {
  FlowFileOptions options;
  options.htsim_time_unit = HtsimTimeUnit::microseconds;
  const auto flows =
      parse_htsim_flows("Nodes 2\nConnections 1\n0->1 start 1.500000 size 9\n", "f", options);
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].start, Time::ns(1500));
}

TEST(HtsimFlows, AcceptsZeroTriggersAndFailuresAndCrlf) {
  const auto flows = parse_htsim_flows(
      "Nodes 2\r\nConnections 1\r\nTriggers 0\r\nFailures 0\r\n"
      "1->0 start 5 size 1\r\n",
      "f");
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].start, Time::ps(5));
}

struct BadCase {
  std::string_view text;
  std::string_view message;
};

TEST(HtsimFlows, BadFilesGiveExactMessages) {
  const BadCase cases[] = {
      {"", "f: expected \"Nodes <n>\" and \"Connections <c>\" header lines"},
      {"0->1 start 0 size 1\n",
       "f:1: expected \"Nodes <n>\" and \"Connections <c>\" before the first connection"},
      {"Nodes 4\nConnections 2\n0->1 start 0 size 1\n",
       "f: \"Connections 2\" on line 2 but the file lists 1 connections"},
      {"Nodes 4\nConnections 1\n0->1 start 0 size 1\n1->2 start 0 size 1\n",
       "f:4: more connections than the 1 declared by \"Connections\" on line 2"},
      {"Nodes 4\nConnections 1\n0->4 start 0 size 1\n",
       "f:3: host 4 is out of range; \"Nodes 4\" on line 1 allows hosts 0..3"},
      {"Nodes 4\nConnections 1\n2->2 start 0 size 1\n",
       "f:3: source and destination are both host 2"},
      {"Nodes 4\nConnections 1\n0->x start 0 size 1\n",
       "f:3: host \"x\" is not a host index (a whole number)"},
      {"Nodes 4\nConnections 1\n0->1 start 0\n", "f:3: missing \"size <bytes>\""},
      {"Nodes 4\nConnections 1\n0->1 size 10\n", "f:3: missing \"start <time>\""},
      {"Nodes 4\nConnections 1\n0->1 start 0 size\n", "f:3: field \"size\" has no value"},
      {"Nodes 4\nConnections 1\n0->1 start 0 size 0\n",
       "f:3: size \"0\" is not a flow size (a whole number of bytes, at least 1)"},
      {"Nodes 4\nConnections 1\n0->1 start 1.5 size 1\n",
       "f:3: start \"1.5\" ps is finer than the 1 ps resolution"},
      {"Nodes 4\nConnections 1\n0->1 start -1 size 1\n",
       "f:3: start \"-1\" is not a decimal number of ps (like 12 or 0.5)"},
      {"Nodes 4\nConnections 1\n0->1 start 0 size 1 start 2\n",
       "f:3: field \"start\" appears twice"},
      {"Nodes 4\nConnections 1\n0->1 start 0 size 1 flowsize 3\n",
       "f:3: unknown field \"flowsize\"; valid fields: id, start, size, prio"},
      {"Nodes 4\nConnections 1\n0->1 trigger 1 size 1\n",
       "f:3: \"trigger\" is not supported; bifrost starts every flow at its start time"},
      {"Nodes 4\nConnections 1\n0->1 start 0 size 1 prio 9\n",
       "f:3: prio \"9\" is not a priority class 0..7"},
      {"Nodes 4\nConnections 2\n0->1 id 3 start 0 size 1\n1->0 id 3 start 0 size 1\n",
       "f:4: id 3 was already used on line 3"},
      {"Nodes 4\nConnections 1\n0->1 id 0 start 0 size 1\n",
       "f:3: id 0 is not allowed (htsim ids start at 1)"},
      {"Nodes 4\nNodes 5\n", "f:2: \"Nodes\" appears twice (first on line 1)"},
      {"Nodes 4 5\n", "f:1: expected \"Nodes <count>\", found 3 fields"},
      {"Nodes 0\n", "f:1: \"Nodes 0\": a file needs at least one node"},
      {"Nodes 4\nConnections 1\nTriggers 2\n",
       "f:3: \"Triggers 2\": triggers and failures are not supported (only 0)"},
      {"Nodes 4\nConnections 1\n0->1 start 0 size 1\nNodes 3\n",
       "f:4: header line \"Nodes\" after the first connection; headers come first"},
      {"Nodes 4\nConnections 1\ntrigger id 1 oneshot\n",
       "f:3: \"trigger\" lines are not supported; bifrost starts every flow at its start time and "
       "has no scripted failures"},
      {"Nodes 4\nConnections 1\n1 0->1 start 0 size 1\n",
       "f:3: expected a header line (Nodes, Connections) or a connection \"<src>-><dst> start <t> "
       "size <bytes>\", found \"1\""},
      {"Nodes 99999999999\n",
       "f:1: Nodes \"99999999999\" is not a whole number from 0 to "
       "4294967295"},
  };
  for (const BadCase& c : cases) {
    EXPECT_EQ(error_of(parse_htsim_flows, c.text), c.message) << c.text;
  }
}

TEST(HtsimFlows, NodesBeyondTheTopologyIsAnError) {
  FlowFileOptions options;
  options.host_count = 8;
  EXPECT_EQ(error_of(parse_htsim_flows, "Nodes 16\n", options),
            "f:1: \"Nodes 16\" is more than the topology's 8 hosts");
}

TEST(HpccFlows, ParsesTheTrafficGeneratorFormat) {
  const auto flows = parse_hpcc_flows(
      "3\n2 1 3 100 200000000 2\n3 1 3 100 5000 2.000000500\n\n4 1 0 80 1 0.000001\n", "f");
  ASSERT_EQ(flows.size(), 3u);
  EXPECT_EQ(flows[0], (Flow{0, 2, 1, Bytes(200'000'000), Time::s(2), 3, ""}));
  EXPECT_EQ(flows[1].start, Time::s(2) + Time::ns(500));
  EXPECT_EQ(flows[2].start, Time::us(1));
  EXPECT_EQ(flows[2].priority, 0);
}

TEST(HpccFlows, BadFilesGiveExactMessages) {
  const BadCase cases[] = {
      {"", "f: no flow count; expected the number of flows on the first line"},
      {"two\n", "f:1: flow count \"two\" is not a whole number from 0 to 18446744073709551615"},
      {"1 2\n", "f:1: expected the flow count alone on the first line, found 2 fields"},
      {"2\n0 1 3 100 10 0\n", "f: line 1 declares 2 flows but the file lists 1"},
      {"1\n0 1 3 100 10 0\n1 0 3 100 10 0\n", "f:3: more flows than the 1 declared on line 1"},
      {"1\n0 1 3 100 10\n",
       "f:2: expected 6 fields \"src dst pg dport size start_seconds\", found 5"},
      {"1\n0 1 8 100 10 0\n", "f:2: pg \"8\" is not a priority class 0..7"},
      {"1\n0 1 3 65536 10 0\n", "f:2: dport \"65536\" is not a whole number from 0 to 65535"},
      {"1\n0 1 3 100 10 1e-3\n",
       "f:2: start \"1e-3\" is not a decimal number of s (like 12 or 0.5)"},
      {"1\n0 1 3 100 10 0.0000000000001\n",
       "f:2: start \"0.0000000000001\" s is finer than the 1 ps resolution"},
      {"1\n0 1 3 100 10 9999999\n",
       "f:2: start \"9999999\" s is beyond the end of simulated time (about 106 days)"},
      {"1\n5 5 3 100 10 0\n", "f:2: source and destination are both host 5"},
  };
  for (const BadCase& c : cases) {
    EXPECT_EQ(error_of(parse_hpcc_flows, c.text), c.message) << c.text;
  }
  FlowFileOptions options;
  options.host_count = 4;
  EXPECT_EQ(error_of(parse_hpcc_flows, "1\n0 4 3 100 10 0\n", options),
            "f:2: host 4 is out of range; the topology (4 hosts) allows hosts 0..3");
}

TEST(FlowCsv, RoundTrips) {
  const std::vector<Flow> flows = {{0, 1, 2, Bytes(1000), Time::ps(123456789), 3, "web/bg"},
                                   {7, 2, 1, Bytes(1), Time::zero(), 0, ""}};
  const std::string text = format_flow_csv(flows);
  EXPECT_EQ(text,
            "id,src,dst,size_bytes,start_ps,priority,tag\n"
            "0,1,2,1000,123456789,3,web/bg\n"
            "7,2,1,1,0,0,\n");
  EXPECT_EQ(parse_flow_csv(text, "f"), flows);
}

TEST(FlowCsv, BadFilesGiveExactMessages) {
  const BadCase cases[] = {
      {"", "f: empty file; expected the header \"id,src,dst,size_bytes,start_ps,priority,tag\""},
      {"id,src\n",
       "f:1: expected the header \"id,src,dst,size_bytes,start_ps,priority,tag\", found "
       "\"id,src\""},
      {"id,src,dst,size_bytes,start_ps,priority,tag\n0,1,2,3,4,5\n",
       "f:2: expected 7 comma-separated fields (id,src,dst,size_bytes,start_ps,priority,tag), "
       "found 6"},
      {"id,src,dst,size_bytes,start_ps,priority,tag\n0,1,2,3,4,5,a b\n",
       "f:2: tag \"a b\" has characters other than letters, digits and _-.:/"},
      {"id,src,dst,size_bytes,start_ps,priority,tag\n0,1,2,3,4,5,\n0,1,2,3,4,5,\n",
       "f:3: id 0 was already used on line 2"},
  };
  for (const BadCase& c : cases) {
    EXPECT_EQ(error_of(parse_flow_csv, c.text), c.message) << c.text;
  }
  EXPECT_THROW(format_flow_csv({{0, 1, 2, Bytes(1), Time::zero(), 0, "a,b"}}), Error);
}

TEST(FlowFiles, LoadAndWriteThroughFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "bifrost_workload_flow_files_test";
  std::filesystem::create_directories(dir);
  const std::vector<Flow> flows = {{0, 1, 2, Bytes(1000), Time::us(3), 1, "x"}};
  write_flow_csv(flows, dir / "flows.csv");
  EXPECT_EQ(load_flow_file(dir / "flows.csv", FlowFileFormat::csv), flows);
  write_text_file(dir / "m.cm", "Nodes 3\nConnections 1\n1->2 start 3000000 size 1000\n");
  const auto htsim = load_flow_file(dir / "m.cm", FlowFileFormat::htsim);
  ASSERT_EQ(htsim.size(), 1u);
  EXPECT_EQ(htsim[0].start, Time::us(3));
  try {
    load_flow_file(dir / "missing.txt", FlowFileFormat::hpcc);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open " + (dir / "missing.txt").string() + ": No such file or directory");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bifrost::sim::workload
