#include "ibpulse/base/number.h"

#include <charconv>

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

}  // namespace ibpulse
