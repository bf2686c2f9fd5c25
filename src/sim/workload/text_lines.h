#pragma once
// Line and field scanning shared by the text readers (CDF files, flow files).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bifrost::sim::workload::detail {

// Walks `text` line by line, numbering from 1 and dropping a trailing '\r' (CRLF files).
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : rest_(text) {}
  // The next line and its number; false at the end of the text.
  bool next(std::string_view& line, std::size_t& number);

 private:
  std::string_view rest_;
  std::size_t number_ = 0;
  bool done_ = false;
};

// Fields separated by runs of spaces and tabs.
std::vector<std::string_view> split_fields(std::string_view line);
// True for lines holding only spaces and tabs.
bool is_blank(std::string_view line);
// `text` in double quotes for an error message: control and non-ASCII bytes as \xNN, and cut
// to 40 characters so a malformed file cannot produce a megabyte-long message.
std::string quote(std::string_view text);

}  // namespace bifrost::sim::workload::detail
