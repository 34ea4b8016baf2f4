#pragma once
// Text from outside (node descriptions, error messages, paths, URLs, receivers' replies) in a
// quoted field of a logfmt line: `event=x node="{}"` with log_text(name). A backslash and a
// double quote are escaped, control characters (a newline, an escape sequence) written as
// \n, \r, \t or \xNN: a node description can neither end its field and forge another key nor
// start a line of its own.
//
// Thread safety: pure functions.

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace ibpulse {

struct LogText {
  std::string_view text;
};

inline LogText log_text(std::string_view text) {
  return {text};
}

// The escaped form, without the surrounding quotes.
std::string escape_log_text(std::string_view text);

}  // namespace ibpulse

template <>
struct fmt::formatter<ibpulse::LogText> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const ibpulse::LogText& t, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(ibpulse::escape_log_text(t.text), ctx);
  }
};
