#include "ibpulse/base/number.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace ibpulse {

Result<uint64_t> parse_unsigned(std::string_view text, uint64_t min, uint64_t max) {
  const auto expected = [&] {
    return Err("expected a whole number from {} to {} (decimal, or hex as 0x...), got '{}'", min,
               max, text);
  };
  std::string_view digits = text;
  const bool hex = digits.starts_with("0x") || digits.starts_with("0X");
  if (hex) digits.remove_prefix(2);
  if (digits.empty()) return expected();
  // A leading zero reads as octal to C's strtoull, to many users too: refused, not guessed.
  if (!hex && digits.size() > 1 && digits.front() == '0') {
    return Err(
        "'{}': a number with a leading 0 is ambiguous (octal?); write it in decimal or "
        "as 0x... hex",
        text);
  }
  uint64_t v = 0;
  const auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), v, hex ? 16 : 10);
  if (ec == std::errc::result_out_of_range) {
    return Err("'{}' does not fit in 64 bits", text);
  }
  if (ec != std::errc() || ptr != digits.data() + digits.size() || v < min || v > max) {
    return expected();
  }
  return v;
}

Result<bool> parse_bool(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "yes" || lower == "on" || lower == "1") return true;
  if (lower == "false" || lower == "no" || lower == "off" || lower == "0") return false;
  return Err("expected true or false, got '{}'", text);
}

Result<uint64_t> parse_guid(std::string_view text) {
  if (auto guid = parse_unsigned(text, 1, UINT64_MAX)) return guid;
  return Err("bad GUID '{}': write 0x followed by up to 16 hex digits", text);
}

}  // namespace ibpulse
