#pragma once
// Walking text a line at a time without copying it.
//
// Thread safety: pure functions.

#include <string_view>

namespace ibpulse {

// Takes the first line off `text` (without its newline) and returns it; `text` keeps the rest.
// A text without a final newline still yields its last line.
inline std::string_view take_line(std::string_view& text) {
  const auto eol = text.find('\n');
  const std::string_view line = text.substr(0, eol);
  text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
  return line;
}

}  // namespace ibpulse
