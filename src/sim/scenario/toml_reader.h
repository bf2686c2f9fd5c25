#pragma once
// Typed, strict access to one TOML table of a scenario file. Every failure throws Error
// "file:line:column: path.key: what was wrong; what would be right", where path names the table
// as a user would ("switch.ecn", "workload[2]").
#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/sim/scenario/units.h"

namespace bifrost::sim::scenario::detail {

// "file:line:column" of a TOML node or key.
std::string location(std::string_view file, const toml::source_region& region);
// "a string", "an integer", ... for messages about wrong types.
std::string_view type_phrase(const toml::node& node);
// "a, b, c".
std::string join(std::span<const std::string_view> items);

class TableReader {
 public:
  TableReader(const toml::table& table, std::string path, std::string_view file);

  const std::string& path() const { return path_; }
  std::string_view file() const { return file_; }
  const toml::table& table() const { return table_; }

  // Throws for the first key, in file order, that is not in `allowed`; `context` is appended
  // to the message (" for kind \"star\"").
  void allow_only(std::span<const std::string_view> allowed, std::string_view context = "") const;

  bool has(std::string_view key) const { return table_.contains(key); }
  const toml::node* find(std::string_view key) const { return table_.get(key); }

  // Typed getters: nullopt when the key is absent, Error when it has the wrong type or value.
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const;
  std::optional<double> number(std::string_view key) const;  // integer or float, finite
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  std::optional<std::string> choice(std::string_view key,
                                    std::span<const std::string_view> choices) const;
  std::optional<Rate> rate(std::string_view key) const;
  std::optional<Time> time(std::string_view key) const;
  std::optional<Bytes> bytes(std::string_view key) const;  // a size string or integer bytes
  std::optional<Length> length(std::string_view key) const;
  // The same, and greater than zero.
  std::optional<Rate> positive_rate(std::string_view key) const;
  std::optional<Time> positive_time(std::string_view key) const;
  std::optional<Time> non_negative_time(std::string_view key) const;  // zero allowed
  std::optional<Bytes> positive_bytes(std::string_view key) const;
  const toml::table* subtable(std::string_view key) const;
  const toml::array* array(std::string_view key, std::string_view element_phrase) const;

  // The value of a required key; Error "missing required key" when absent.
  template <typename T>
  T required(std::optional<T> value, std::string_view key) const {
    if (!value) missing(key);
    return *std::move(value);
  }
  [[noreturn]] void missing(std::string_view key) const;

  // Errors about a key's value: "loc: path.key: message".
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  // Errors about an element of an array value.
  [[noreturn]] void fail_at(const toml::node& node, std::string_view key,
                            const std::string& message) const;
  // Errors about the table as a whole: "loc: path: message".
  [[noreturn]] void fail_table(const std::string& message) const;
  [[noreturn]] void wrong_type(std::string_view key, const toml::node& node,
                               std::string_view expected) const;

 private:
  const toml::node& node(std::string_view key) const { return *table_.get(key); }
  [[noreturn]] void not_positive(std::string_view key) const;

  const toml::table& table_;
  std::string path_;
  std::string_view file_;
};

}  // namespace bifrost::sim::scenario::detail
