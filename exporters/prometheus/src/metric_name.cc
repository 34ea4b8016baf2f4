#include "ibpulse/exporters/prometheus/metric_name.h"

#include <algorithm>
#include <cctype>

namespace ibpulse::exporters::prometheus {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}

bool is_upper(char c) {
  return std::isupper(static_cast<unsigned char>(c)) != 0;
}

std::string_view strip(std::string_view s, std::string_view prefix, std::string_view suffix) {
  if (s.size() > prefix.size() && s.starts_with(prefix) && is_upper(s[prefix.size()])) {
    s.remove_prefix(prefix.size());
  }
  if (s.size() > suffix.size() && s.ends_with(suffix)) s.remove_suffix(suffix.size());
  return s;
}

}  // namespace

bool is_valid_metric_name(std::string_view name) {
  if (name.empty() || !is_name_start(name.front())) return false;
  return std::ranges::all_of(name, [](char c) {
    return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

std::string snake_case_field(std::string_view iba_field) {
  const std::string_view core = strip(iba_field, "Port", "Counter");
  std::string out;
  for (size_t i = 0; i < core.size(); ++i) {
    const char c = core[i];
    // A new word starts at an upper-case letter that follows a lower-case one, or that starts
    // a capitalised word after an acronym ("VLOp" -> "vl_op").
    const bool boundary =
        i > 0 && is_upper(c) &&
        (!is_upper(core[i - 1]) || (i + 1 < core.size() && !is_upper(core[i + 1])));
    if (boundary) out.push_back('_');
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

}  // namespace ibpulse::exporters::prometheus
