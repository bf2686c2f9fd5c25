#include "toml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::sim::scenario::detail {

std::string location(std::string_view file, const toml::source_region& region) {
  return fmt::format("{}:{}:{}", file, region.begin.line, region.begin.column);
}

std::string_view type_phrase(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time of day";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

std::string join(std::span<const std::string_view> items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out;
}

TableReader::TableReader(const toml::table& table, std::string path, std::string_view file)
    : table_(table), path_(std::move(path)), file_(file) {}

void TableReader::allow_only(std::span<const std::string_view> allowed,
                             std::string_view context) const {
  const toml::key* first = nullptr;
  for (auto&& [key, value] : table_) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    const auto& at = key.source().begin;
    if (first == nullptr || at.line < first->source().begin.line ||
        (at.line == first->source().begin.line && at.column < first->source().begin.column)) {
      first = &key;
    }
  }
  if (first != nullptr) {
    throw Error("{}: {}: unknown key \"{}\"{}; valid keys: {}", location(file_, first->source()),
                path_, first->str(), context, join(allowed));
  }
}

void TableReader::missing(std::string_view key) const {
  throw Error("{}: {}: missing required key \"{}\"", location(file_, table_.source()), path_, key);
}

void TableReader::fail(std::string_view key, const std::string& message) const {
  fail_at(node(key), key, message);
}

void TableReader::fail_at(const toml::node& at, std::string_view key,
                          const std::string& message) const {
  throw Error("{}: {}.{}: {}", location(file_, at.source()), path_, key, message);
}

void TableReader::fail_table(const std::string& message) const {
  throw Error("{}: {}: {}", location(file_, table_.source()), path_, message);
}

void TableReader::wrong_type(std::string_view key, const toml::node& at,
                             std::string_view expected) const {
  fail_at(at, key, fmt::format("expected {}, found {}", expected, type_phrase(at)));
}

std::optional<int64_t> TableReader::integer(std::string_view key, int64_t min, int64_t max) const {
  if (!has(key)) return std::nullopt;
  const auto* v = node(key).as_integer();
  if (v == nullptr) wrong_type(key, node(key), "an integer");
  const int64_t value = v->get();
  if (value < min || value > max) {
    fail(key, fmt::format("{} is out of range; valid values: {} to {}", value, min, max));
  }
  return value;
}

std::optional<double> TableReader::number(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  const toml::node& n = node(key);
  double value = 0;
  if (const auto* i = n.as_integer()) {
    value = static_cast<double>(i->get());
  } else if (const auto* f = n.as_floating_point()) {
    value = f->get();
  } else {
    wrong_type(key, n, "a number");
  }
  if (!std::isfinite(value)) fail(key, fmt::format("{} is not a finite number", value));
  return value;
}

std::optional<bool> TableReader::boolean(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  const auto* v = node(key).as_boolean();
  if (v == nullptr) wrong_type(key, node(key), "a boolean (true or false)");
  return v->get();
}

std::optional<std::string> TableReader::string(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  const auto* v = node(key).as_string();
  if (v == nullptr) wrong_type(key, node(key), "a string");
  return v->get();
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               std::span<const std::string_view> choices) const {
  if (!has(key)) return std::nullopt;
  const auto* v = node(key).as_string();
  if (v == nullptr) {
    wrong_type(key, node(key), fmt::format("a string, one of: {}", join(choices)));
  }
  if (std::find(choices.begin(), choices.end(), v->get()) == choices.end()) {
    fail(key, fmt::format("\"{}\" is not valid; valid choices: {}", v->get(), join(choices)));
  }
  return v->get();
}

namespace {

// Runs a unit parser on a string value, prefixing its message with the key's location.
template <typename T, typename Parse>
std::optional<T> with_unit(const TableReader& r, std::string_view key, std::string_view expected,
                           Parse parse) {
  const toml::node& n = *r.find(key);
  const auto* v = n.as_string();
  if (v == nullptr) r.wrong_type(key, n, expected);
  try {
    return parse(v->get());
  } catch (const Error& e) {
    r.fail(key, e.what());
  }
}

}  // namespace

std::optional<Rate> TableReader::rate(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return with_unit<Rate>(*this, key, "a rate string such as \"100Gbps\"", parse_rate);
}

std::optional<Time> TableReader::time(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return with_unit<Time>(*this, key, "a time string such as \"1us\"", parse_time);
}

std::optional<Bytes> TableReader::bytes(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  if (const auto* i = node(key).as_integer()) {
    if (i->get() < 0) fail(key, fmt::format("{} bytes is negative", i->get()));
    return Bytes(static_cast<uint64_t>(i->get()));
  }
  return with_unit<Bytes>(*this, key, "a size string such as \"12MB\" or an integer of bytes",
                          parse_bytes);
}

std::optional<Length> TableReader::length(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return with_unit<Length>(*this, key, "a length string such as \"10km\"", parse_length);
}

void TableReader::not_positive(std::string_view key) const {
  const toml::node& n = node(key);
  const std::string shown = n.is_string() ? fmt::format("\"{}\"", *n.value<std::string>())
                                          : fmt::format("{}", n.value_or<int64_t>(0));
  fail(key, fmt::format("must be greater than zero, found {}", shown));
}

std::optional<Rate> TableReader::positive_rate(std::string_view key) const {
  const auto v = rate(key);
  if (v && v->bits_per_second() <= 0) not_positive(key);
  return v;
}

std::optional<Time> TableReader::positive_time(std::string_view key) const {
  const auto v = time(key);
  if (v && *v <= Time::zero()) not_positive(key);
  return v;
}

std::optional<Time> TableReader::non_negative_time(std::string_view key) const {
  const auto v = time(key);
  if (v && *v < Time::zero()) fail(key, "must not be negative");
  return v;
}

std::optional<Bytes> TableReader::positive_bytes(std::string_view key) const {
  const auto v = bytes(key);
  if (v && v->count() == 0) not_positive(key);
  return v;
}

const toml::table* TableReader::subtable(std::string_view key) const {
  if (!has(key)) return nullptr;
  const auto* t = node(key).as_table();
  if (t == nullptr) wrong_type(key, node(key), "a table");
  return t;
}

const toml::array* TableReader::array(std::string_view key, std::string_view element_phrase) const {
  if (!has(key)) return nullptr;
  const auto* a = node(key).as_array();
  if (a == nullptr) wrong_type(key, node(key), fmt::format("an array of {}", element_phrase));
  return a;
}

}  // namespace bifrost::sim::scenario::detail
