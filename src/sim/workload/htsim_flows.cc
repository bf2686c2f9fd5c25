// Reader for htsim's connection-matrix format (see flow_files.h).
#include <fmt/format.h>

#include <limits>
#include <optional>
#include <unordered_map>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/flow_files.h"
#include "flow_file_fields.h"
#include "text_lines.h"

namespace bifrost::sim::workload {

namespace {

using detail::LineRef;
using detail::quote;

struct HeaderValue {
  uint64_t value = 0;
  std::size_t line = 0;
};

class HtsimReader {
 public:
  HtsimReader(std::string_view name, const FlowFileOptions& options)
      : name_(name), options_(options) {}

  void line(std::string_view text, std::size_t number) {
    const auto fields = detail::split_fields(text);
    if (fields.empty() || fields[0].front() == '#') return;
    const LineRef at{name_, number};
    const std::string_view first = fields[0];
    if (first.find("->") != std::string_view::npos) {
      connection(fields, at);
    } else if (first == "Nodes" || first == "Connections" || first == "Triggers" ||
               first == "Failures") {
      header(fields, at);
    } else if (first == "trigger" || first == "failure") {
      throw Error(
          "{}:{}: \"{}\" lines are not supported; bifrost starts every flow at its start "
          "time and has no scripted failures",
          at.name, at.line, first);
    } else {
      throw Error(
          "{}:{}: expected a header line (Nodes, Connections) or a connection "
          "\"<src>-><dst> start <t> size <bytes>\", found {}",
          at.name, at.line, quote(first));
    }
  }

  std::vector<Flow> finish() {
    if (!nodes_ || !connections_) {
      throw Error("{}: expected \"Nodes <n>\" and \"Connections <c>\" header lines", name_);
    }
    if (flows_.size() != connections_->value) {
      throw Error("{}: \"Connections {}\" on line {} but the file lists {} connections", name_,
                  connections_->value, connections_->line, flows_.size());
    }
    return std::move(flows_);
  }

 private:
  void header(const std::vector<std::string_view>& fields, LineRef at) {
    const std::string_view key = fields[0];
    if (!flows_.empty()) {
      throw Error("{}:{}: header line \"{}\" after the first connection; headers come first",
                  at.name, at.line, key);
    }
    if (fields.size() != 2) {
      throw Error("{}:{}: expected \"{} <count>\", found {} fields", at.name, at.line, key,
                  fields.size());
    }
    const uint64_t value =
        detail::parse_count(fields[1], key, std::numeric_limits<uint32_t>::max(), at);
    std::optional<HeaderValue>* slot = key == "Nodes"         ? &nodes_
                                       : key == "Connections" ? &connections_
                                                              : nullptr;
    if (slot == nullptr) {
      if (value != 0) {
        throw Error("{}:{}: \"{} {}\": triggers and failures are not supported (only 0)", at.name,
                    at.line, key, value);
      }
      return;
    }
    if (*slot) {
      throw Error("{}:{}: \"{}\" appears twice (first on line {})", at.name, at.line, key,
                  (*slot)->line);
    }
    if (key == "Nodes") {
      if (value == 0)
        throw Error("{}:{}: \"Nodes 0\": a file needs at least one node", at.name, at.line);
      if (options_.host_count && value > *options_.host_count) {
        throw Error("{}:{}: \"Nodes {}\" is more than the topology's {} hosts", at.name, at.line,
                    value, *options_.host_count);
      }
    }
    *slot = HeaderValue{value, at.line};
  }

  void connection(const std::vector<std::string_view>& fields, LineRef at) {
    if (!nodes_ || !connections_) {
      throw Error(
          "{}:{}: expected \"Nodes <n>\" and \"Connections <c>\" before the first "
          "connection",
          at.name, at.line);
    }
    if (flows_.size() == connections_->value) {
      throw Error("{}:{}: more connections than the {} declared by \"Connections\" on line {}",
                  at.name, at.line, connections_->value, connections_->line);
    }
    const std::string_view pair = fields[0];
    const std::size_t arrow = pair.find("->");
    const std::string limit_what =
        fmt::format("\"Nodes {}\" on line {}", nodes_->value, nodes_->line);
    const auto limit = static_cast<uint32_t>(nodes_->value);
    Flow flow;
    flow.src = detail::parse_host(pair.substr(0, arrow), at, limit, limit_what);
    flow.dst = detail::parse_host(pair.substr(arrow + 2), at, limit, limit_what);
    detail::check_not_self(flow.src, flow.dst, at);

    bool has_start = false;
    bool has_size = false;
    bool has_id = false;
    bool has_prio = false;
    for (std::size_t i = 1; i < fields.size(); i += 2) {
      const std::string_view key = fields[i];
      if (key == "trigger" || key == "send_done_trigger" || key == "recv_done_trigger" ||
          key == "addon") {
        throw Error("{}:{}: \"{}\" is not supported; bifrost starts every flow at its start time",
                    at.name, at.line, key);
      }
      bool* seen = key == "start"  ? &has_start
                   : key == "size" ? &has_size
                   : key == "id"   ? &has_id
                   : key == "prio" ? &has_prio
                                   : nullptr;
      if (seen == nullptr) {
        throw Error("{}:{}: unknown field {}; valid fields: id, start, size, prio", at.name,
                    at.line, quote(key));
      }
      if (*seen) throw Error("{}:{}: field \"{}\" appears twice", at.name, at.line, key);
      *seen = true;
      if (i + 1 >= fields.size()) {
        throw Error("{}:{}: field \"{}\" has no value", at.name, at.line, key);
      }
      value(key, fields[i + 1], flow, at);
    }
    if (!has_start) throw Error("{}:{}: missing \"start <time>\"", at.name, at.line);
    if (!has_size) throw Error("{}:{}: missing \"size <bytes>\"", at.name, at.line);
    flow.id = flows_.size();
    flows_.push_back(std::move(flow));
  }

  void value(std::string_view key, std::string_view text, Flow& flow, LineRef at) {
    if (key == "start") {
      const bool ps = options_.htsim_time_unit == HtsimTimeUnit::picoseconds;
      flow.start = detail::parse_time_in(text, ps ? 1 : 1'000'000, ps ? "ps" : "us", "start", at);
    } else if (key == "size") {
      flow.size = detail::parse_flow_size(text, at);
    } else if (key == "prio") {
      flow.priority = detail::parse_priority(text, "prio", at);
    } else {
      const uint64_t id = detail::parse_count(text, "id", std::numeric_limits<uint64_t>::max(), at);
      if (id == 0)
        throw Error("{}:{}: id 0 is not allowed (htsim ids start at 1)", at.name, at.line);
      const auto [it, fresh] = ids_.emplace(id, at.line);
      if (!fresh) {
        throw Error("{}:{}: id {} was already used on line {}", at.name, at.line, id, it->second);
      }
    }
  }

  std::string_view name_;
  const FlowFileOptions& options_;
  std::optional<HeaderValue> nodes_;
  std::optional<HeaderValue> connections_;
  std::unordered_map<uint64_t, std::size_t> ids_;
  std::vector<Flow> flows_;
};

}  // namespace

std::vector<Flow> parse_htsim_flows(std::string_view text, std::string_view name,
                                    const FlowFileOptions& options) {
  HtsimReader reader(name, options);
  detail::LineCursor cursor(text);
  std::string_view line;
  std::size_t number = 0;
  while (cursor.next(line, number)) reader.line(line, number);
  return reader.finish();
}

}  // namespace bifrost::sim::workload
