#pragma once
// Scalars as operators write them in flags, configuration files and rule files, read one way
// everywhere. Whole numbers: decimal ("4096") or hexadecimal with 0x ("0x1000"); nothing else:
// no sign ("-1" would wrap to 2^64-1 through strtoull), no octal (strtoull's base 0 reads
// "0777" as 511), no spaces or trailing text.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse {

// A number from `min` to `max`; the error says what was expected.
Result<uint64_t> parse_unsigned(std::string_view text, uint64_t min = 0, uint64_t max = UINT64_MAX);

// true, yes, on, 1 or false, no, off, 0, in any case.
Result<bool> parse_bool(std::string_view text);

// A node or port GUID: a non-zero number as parse_unsigned reads it (0x and hex digits, as
// GUIDs are written).
Result<uint64_t> parse_guid(std::string_view text);

}  // namespace ibpulse
