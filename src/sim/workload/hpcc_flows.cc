// Reader for the HPCC ns-3 simulator's flow format (see flow_files.h).
#include <fmt/format.h>

#include <limits>
#include <optional>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/flow_files.h"
#include "flow_file_fields.h"
#include "text_lines.h"

namespace bifrost::sim::workload {

std::vector<Flow> parse_hpcc_flows(std::string_view text, std::string_view name,
                                   const FlowFileOptions& options) {
  using detail::LineRef;
  const std::string limit_what =
      options.host_count ? fmt::format("the topology ({} hosts)", *options.host_count) : "";
  std::optional<uint64_t> declared;
  std::size_t declared_line = 0;
  std::vector<Flow> flows;
  detail::LineCursor cursor(text);
  std::string_view line;
  std::size_t number = 0;
  while (cursor.next(line, number)) {
    const auto fields = detail::split_fields(line);
    if (fields.empty()) continue;
    const LineRef at{name, number};
    if (!declared) {
      if (fields.size() != 1) {
        throw Error("{}:{}: expected the flow count alone on the first line, found {} fields", name,
                    number, fields.size());
      }
      declared =
          detail::parse_count(fields[0], "flow count", std::numeric_limits<uint64_t>::max(), at);
      declared_line = number;
      continue;
    }
    if (flows.size() == *declared) {
      throw Error("{}:{}: more flows than the {} declared on line {}", name, number, *declared,
                  declared_line);
    }
    if (fields.size() != 6) {
      throw Error("{}:{}: expected 6 fields \"src dst pg dport size start_seconds\", found {}",
                  name, number, fields.size());
    }
    Flow flow;
    flow.id = flows.size();
    flow.src = detail::parse_host(fields[0], at, options.host_count, limit_what);
    flow.dst = detail::parse_host(fields[1], at, options.host_count, limit_what);
    detail::check_not_self(flow.src, flow.dst, at);
    flow.priority = detail::parse_priority(fields[2], "pg", at);
    detail::parse_count(fields[3], "dport", 65535, at);
    flow.size = detail::parse_flow_size(fields[4], at);
    flow.start = detail::parse_time_in(fields[5], 1'000'000'000'000, "s", "start", at);
    flows.push_back(std::move(flow));
  }
  if (!declared) {
    throw Error("{}: no flow count; expected the number of flows on the first line", name);
  }
  if (flows.size() != *declared) {
    throw Error("{}: line {} declares {} flows but the file lists {}", name, declared_line,
                *declared, flows.size());
  }
  return flows;
}

}  // namespace bifrost::sim::workload
