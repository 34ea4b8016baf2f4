#include "ibpulse/exporters/remote_write/series_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "label_scan.h"

namespace ibpulse::exporters::remote_write {

std::optional<double> parse_value(std::string_view text) {
  if (text == "NaN" || text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf" || text == "-inf") return -std::numeric_limits<double>::infinity();
  const char* end = text.data() + text.size();
  uint64_t integer = 0;  // counters: exact integers, converted once (exact up to 2^53)
  auto [ptr, ec] = std::from_chars(text.data(), end, integer);
  if (ec == std::errc() && ptr == end) return static_cast<double>(integer);
  double v = 0;
  auto [fptr, fec] = std::from_chars(text.data(), end, v);
  if (fec == std::errc() && fptr == end) return v;
  return std::nullopt;
}

std::optional<SeriesLine> parse_line(std::string_view line) {
  if (line.empty() || line[0] == '#') return std::nullopt;
  SeriesLine out;
  size_t value_at = 0;
  const size_t brace = line.find('{');
  const size_t space = line.find(' ');
  if (brace != std::string_view::npos && brace < space) {
    size_t close = brace + 1;  // the closing brace outside quotes
    bool quoted = false;
    for (; close < line.size(); ++close) {
      if (line[close] == '\\') {
        ++close;
      } else if (line[close] == '"') {
        quoted = !quoted;
      } else if (line[close] == '}' && !quoted) {
        break;
      }
    }
    if (close >= line.size()) return std::nullopt;
    out.name = line.substr(0, brace);
    out.labels = line.substr(brace + 1, close - brace - 1);
    out.series = line.substr(0, close + 1);
    value_at = close + 2;
  } else {
    if (space == std::string_view::npos) return std::nullopt;
    out.name = out.series = line.substr(0, space);
    value_at = space + 1;
  }
  if (value_at > line.size()) return std::nullopt;
  std::string_view value = line.substr(value_at);
  value = value.substr(0, value.find(' '));  // a timestamp, were there one, is not ours
  const auto v = parse_value(value);
  if (!v) return std::nullopt;
  out.value = *v;
  return out;
}

Result<Labels> series_labels(std::string_view series, const Labels& external) {
  Labels out;
  const size_t brace = series.find('{');
  out.emplace_back("__name__", std::string(series.substr(0, brace)));
  if (brace != std::string_view::npos) {
    if (series.back() != '}') return Err("malformed series '{}'", series);
    const auto labels = series.substr(brace + 1, series.size() - brace - 2);
    const bool ok = for_each_label(labels, [&](std::string_view name, std::string_view value) {
      out.emplace_back(std::string(name), unescape(value));
      return true;
    });
    if (!ok) return Err("malformed labels in '{}'", series);
  }
  for (const auto& label : external) {  // not a structured binding: clang 14 cannot capture one
    const bool present =
        std::any_of(out.begin(), out.end(), [&](const auto& l) { return l.first == label.first; });
    if (!present) out.emplace_back(label.first, label.second);  // the series' own label wins
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string_view> label_value(std::string_view labels, std::string_view name) {
  std::optional<std::string_view> found;
  for_each_label(labels, [&](std::string_view n, std::string_view v) {
    if (n != name) return true;
    found = v;
    return false;
  });
  return found;
}

uint64_t series_hash(std::string_view series) {
  // Eight bytes a step (byte-wise FNV-1a was a tenth of the writer's time), then murmur3's
  // finaliser: the table and the shards use both halves of the result.
  uint64_t h = 0xcbf29ce484222325ULL ^ series.size();
  size_t i = 0;
  for (; i + 8 <= series.size(); i += 8) {
    uint64_t chunk = 0;
    std::memcpy(&chunk, series.data() + i, 8);
    h = (h ^ chunk) * 0x100000001b3ULL;
    h ^= h >> 32;
  }
  for (; i < series.size(); ++i)
    h = (h ^ static_cast<unsigned char>(series[i])) * 0x100000001b3ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

MetricSelection::MetricSelection(std::vector<std::string> prefixes)
    : prefixes_(std::move(prefixes)) {}

bool MetricSelection::selects(std::string_view name) const {
  if (prefixes_.empty()) return true;
  return std::any_of(prefixes_.begin(), prefixes_.end(),
                     [&](const std::string& p) { return name.starts_with(p); });
}

}  // namespace ibpulse::exporters::remote_write
