// bifrost's own flow-list CSV (see flow_files.h).
#include <fmt/format.h>

#include <limits>
#include <unordered_map>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/flow_files.h"
#include "flow_file_fields.h"
#include "text_lines.h"

namespace bifrost::sim::workload {

namespace {

constexpr std::string_view kHeader = "id,src,dst,size_bytes,start_ps,priority,tag";

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = line.find(',', begin);
    fields.push_back(line.substr(begin, comma - begin));
    if (comma == std::string_view::npos) return fields;
    begin = comma + 1;
  }
}

}  // namespace

bool is_valid_tag(std::string_view tag) {
  for (char c : tag) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.' || c == ':' || c == '/';
    if (!ok) return false;
  }
  return true;
}

std::string format_flow_csv(const std::vector<Flow>& flows) {
  std::string out(kHeader);
  out += '\n';
  for (const Flow& f : flows) {
    if (!is_valid_tag(f.tag)) {
      throw Error("flow {}: tag {} has characters other than letters, digits and _-.:/", f.id,
                  detail::quote(f.tag));
    }
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{}\n", f.id, f.src, f.dst,
                   f.size.count(), f.start.picoseconds(), f.priority, f.tag);
  }
  return out;
}

std::vector<Flow> parse_flow_csv(std::string_view text, std::string_view name,
                                 const FlowFileOptions& options) {
  using detail::LineRef;
  const std::string limit_what =
      options.host_count ? fmt::format("the topology ({} hosts)", *options.host_count) : "";
  bool header_seen = false;
  std::unordered_map<uint64_t, std::size_t> ids;
  std::vector<Flow> flows;
  detail::LineCursor cursor(text);
  std::string_view line;
  std::size_t number = 0;
  while (cursor.next(line, number)) {
    if (detail::is_blank(line)) continue;
    const LineRef at{name, number};
    if (!header_seen) {
      if (line != kHeader) {
        throw Error("{}:{}: expected the header \"{}\", found {}", name, number, kHeader,
                    detail::quote(line));
      }
      header_seen = true;
      continue;
    }
    const auto fields = split_commas(line);
    if (fields.size() != 7) {
      throw Error("{}:{}: expected 7 comma-separated fields ({}), found {}", name, number, kHeader,
                  fields.size());
    }
    Flow flow;
    flow.id = detail::parse_count(fields[0], "id", std::numeric_limits<uint64_t>::max(), at);
    const auto [it, fresh] = ids.emplace(flow.id, number);
    if (!fresh) {
      throw Error("{}:{}: id {} was already used on line {}", name, number, flow.id, it->second);
    }
    flow.src = detail::parse_host(fields[1], at, options.host_count, limit_what);
    flow.dst = detail::parse_host(fields[2], at, options.host_count, limit_what);
    detail::check_not_self(flow.src, flow.dst, at);
    flow.size = detail::parse_flow_size(fields[3], at);
    flow.start = detail::parse_time_in(fields[4], 1, "ps", "start_ps", at);
    flow.priority = detail::parse_priority(fields[5], "priority", at);
    if (!is_valid_tag(fields[6])) {
      throw Error("{}:{}: tag {} has characters other than letters, digits and _-.:/", name, number,
                  detail::quote(fields[6]));
    }
    flow.tag = std::string(fields[6]);
    flows.push_back(std::move(flow));
  }
  if (!header_seen) throw Error("{}: empty file; expected the header \"{}\"", name, kHeader);
  return flows;
}

}  // namespace bifrost::sim::workload
