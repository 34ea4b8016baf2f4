#pragma once
// Text helpers for HTTP header values, shared by the request parser and the Accept-Encoding
// check: optional whitespace (RFC 9110: spaces and tabs) and case-insensitive ASCII compares.
// Private to the exporter.
//
// Thread safety: pure functions.

#include <algorithm>
#include <string_view>

namespace ibpulse::exporters::prometheus::detail {

inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline bool iequals_ascii(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return ascii_lower(x) == ascii_lower(y);
         });
}

inline std::string_view trim_http_whitespace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

}  // namespace ibpulse::exporters::prometheus::detail
