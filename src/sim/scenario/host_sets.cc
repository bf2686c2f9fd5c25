#include "host_sets.h"

#include <fmt/format.h>

#include <unordered_set>

#include "bifrost/sim/workload/number_text.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::string_view kExpected =
    "\"all\", a range such as \"0..15\" or an array of host indices";

std::string range_note(uint64_t host_count) {
  return fmt::format("the topology has {} hosts (0..{})", host_count, host_count - 1);
}

std::vector<uint32_t> from_string(const TableReader& r, std::string_view key,
                                  const std::string& text, uint64_t host_count) {
  if (text == "all") return all_hosts(host_count);
  const std::size_t dots = text.find("..");
  const auto first = workload::parse_unsigned(std::string_view(text).substr(0, dots));
  // Without "..", the text is a single number, which is not a selection (no range).
  const auto last = workload::parse_unsigned(
      dots == std::string::npos ? std::string_view() : std::string_view(text).substr(dots + 2));
  if (!first || !last || dots == std::string::npos) {
    r.fail(key, fmt::format("\"{}\" is not a host selection; expected {}", text, kExpected));
  }
  const uint64_t lo = *first;
  const uint64_t hi = *last;
  if (lo > hi) {
    r.fail(key, fmt::format("\"{}\" is an empty range; the first host comes first", text));
  }
  if (hi >= host_count) {
    r.fail(key, fmt::format("\"{}\" is out of range; {}", text, range_note(host_count)));
  }
  std::vector<uint32_t> hosts;
  for (uint64_t h = lo; h <= hi; ++h) hosts.push_back(static_cast<uint32_t>(h));
  return hosts;
}

}  // namespace

std::vector<uint32_t> all_hosts(uint64_t host_count) {
  std::vector<uint32_t> hosts(host_count);
  for (uint64_t h = 0; h < host_count; ++h) hosts[h] = static_cast<uint32_t>(h);
  return hosts;
}

std::optional<std::vector<uint32_t>> host_set(const TableReader& r, std::string_view key,
                                              uint64_t host_count) {
  const toml::node* node = r.find(key);
  if (node == nullptr) return std::nullopt;
  if (const auto* text = node->as_string()) return from_string(r, key, text->get(), host_count);
  const auto* array = node->as_array();
  if (array == nullptr) r.wrong_type(key, *node, kExpected);
  std::vector<uint32_t> hosts;
  std::unordered_set<int64_t> seen;
  for (const toml::node& element : *array) {
    const auto* index = element.as_integer();
    if (index == nullptr) {
      r.fail_at(element, key, fmt::format("expected a host index, found {}", type_phrase(element)));
    }
    const int64_t h = index->get();
    if (h < 0 || static_cast<uint64_t>(h) >= host_count) {
      r.fail_at(element, key,
                fmt::format("host {} is out of range; {}", h, range_note(host_count)));
    }
    if (!seen.insert(h).second) r.fail_at(element, key, fmt::format("host {} appears twice", h));
    hosts.push_back(static_cast<uint32_t>(h));
  }
  if (hosts.empty()) r.fail(key, "is empty; select at least one host");
  return hosts;
}

std::optional<uint32_t> host_index(const TableReader& r, std::string_view key,
                                   uint64_t host_count) {
  const toml::node* node = r.find(key);
  if (node == nullptr) return std::nullopt;
  const auto* index = node->as_integer();
  if (index == nullptr) r.wrong_type(key, *node, "a host index");
  const int64_t h = index->get();
  if (h < 0 || static_cast<uint64_t>(h) >= host_count) {
    r.fail(key, fmt::format("host {} is out of range; {}", h, range_note(host_count)));
  }
  return static_cast<uint32_t>(h);
}

}  // namespace bifrost::sim::scenario::detail
