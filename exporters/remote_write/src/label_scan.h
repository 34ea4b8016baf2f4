#pragma once
// Reading the label text of a series as the renderer writes it (`a="x",b="y\"z"`): shared by
// series_text.cc and the encoder, which reads labels without copying them.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>

namespace ibpulse::exporters::remote_write {

// Calls `each(name, escaped value)` for every label of `labels`; false on malformed text.
template <typename Each>
inline bool for_each_label(std::string_view labels, Each each) {
  size_t i = 0;
  while (i < labels.size()) {
    const size_t eq = labels.find("=\"", i);
    if (eq == std::string_view::npos) return false;
    size_t end = eq + 2;
    while (end < labels.size() && labels[end] != '"')
      end += labels[end] == '\\' ? size_t{2} : size_t{1};
    if (end >= labels.size()) return false;
    if (!each(labels.substr(i, eq - i), labels.substr(eq + 2, end - eq - 2))) return true;
    i = end + 1;
    if (i < labels.size() && labels[i] == ',') ++i;
  }
  return true;
}

// `\\`, `\"` and `\n` back to what they stand for.
inline std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      out.push_back(s[i] == 'n' ? '\n' : s[i]);
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace ibpulse::exporters::remote_write
