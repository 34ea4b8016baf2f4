#include "ibpulse/base/duration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace ibpulse {

namespace {

// Prometheus's compound form, "1h30m", "1m30s", "2s500ms": whole numbers, each followed by a
// unit, the units in decreasing order and each at most once. Nothing when `text` has fewer
// than two such parts (the single forms, decimals included, are read below).
std::optional<Result<std::chrono::milliseconds>> parse_compound(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    int64_t ms;
  };
  // "ms" before "m": the longer suffix first where both would match.
  constexpr std::array<Unit, 4> kUnits = {{{"h", 3600000}, {"ms", 1}, {"m", 60000}, {"s", 1000}}};
  int64_t total = 0;
  int64_t last_unit = INT64_MAX;  // the previous part's unit, in ms
  size_t parts = 0;
  for (std::string_view rest = text; !rest.empty(); ++parts) {
    const size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || digits == std::string_view::npos) return std::nullopt;
    const auto* const unit = std::find_if(kUnits.begin(), kUnits.end(), [&](const Unit& u) {
      return rest.substr(digits).starts_with(u.suffix);
    });
    if (unit == kUnits.end()) return std::nullopt;
    if (unit->ms >= last_unit) {
      return Err("'{}': the units of a duration go from the largest down, each once (1h30m)", text);
    }
    last_unit = unit->ms;
    if (digits > 6) return Err("expected a duration of at most a day, got '{}'", text);
    total += std::stoll(std::string(rest.substr(0, digits))) * unit->ms;
    rest.remove_prefix(digits + unit->suffix.size());
  }
  if (parts < 2) return std::nullopt;
  if (total <= 0 || total > 86400000)
    return Err("expected a duration like 500ms, 1s, 1m30s or 1h (at most a day), got '{}'", text);
  return std::chrono::milliseconds(total);
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  if (auto compound = parse_compound(text)) return std::move(*compound);
  double factor = 1000;
  std::string number = text;
  if (text.ends_with("ms")) {
    factor = 1;
    number = text.substr(0, text.size() - 2);
  } else if (text.ends_with("s")) {
    number = text.substr(0, text.size() - 1);
  } else if (text.ends_with("m")) {
    factor = 60000;
    number = text.substr(0, text.size() - 1);
  } else if (text.ends_with("h")) {
    factor = 3600000;
    number = text.substr(0, text.size() - 1);
  }
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0) || v * factor > 86400e3) {
    return Err("expected a duration like 500ms, 1s, 5m or 1h (at most a day), got '{}'", text);
  }
  // Durations are whole milliseconds: a fraction of one would be rounded, and below 1 ms to 0
  // (a zero interval makes a loop spin). Refused rather than rounded silently.
  const double ms = v * factor;
  if (ms != std::floor(ms)) {
    return Err("'{}' is not a whole number of milliseconds: durations go down to 1ms", text);
  }
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

Result<std::chrono::milliseconds> parse_duration(const std::string& text,
                                                 std::chrono::milliseconds min) {
  auto d = parse_duration(text);
  if (d && *d < min) return Err("'{}' is below the smallest allowed, {}ms", text, min.count());
  return d;
}

namespace {

// A positive number of ns, us, ms or s, in nanoseconds (fractions kept); no upper bound.
Result<double> period_ns(const std::string& text) {
  struct Unit {
    std::string_view suffix;
    double nanoseconds;
  };
  // "ms" and "ns" before "s": the longest suffix that matches.
  constexpr std::array<Unit, 4> kUnits = {{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};
  const auto* const unit = std::find_if(kUnits.begin(), kUnits.end(),
                                        [&](const Unit& u) { return text.ends_with(u.suffix); });
  const std::string number =
      unit == kUnits.end() ? std::string() : text.substr(0, text.size() - unit->suffix.size());
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v)) {
    return Err("expected a duration like 4ns, 2.5us or 1ms, got '{}'", text);
  }
  return v * unit->nanoseconds;
}

}  // namespace

Result<double> parse_short_period_ns(const std::string& text) {
  auto ns = period_ns(text);
  if (ns && *ns > 1e9) return Err("'{}' is longer than 1s", text);
  return ns;
}

Result<std::chrono::nanoseconds> parse_short_duration(const std::string& text) {
  auto parsed = period_ns(text);
  if (!parsed) return Error{parsed.error()};
  const double ns = *parsed;
  if (ns != std::floor(ns) || ns > 1e9) {
    return Err("'{}' is not a whole number of nanoseconds from 1ns to 1s", text);
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(ns));
}

}  // namespace ibpulse
