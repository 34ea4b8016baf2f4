#pragma once
// The `name` scope of an alert rule: a POSIX extended regular expression, compiled with
// std::regex. libstdc++ expands a bounded repetition ({m,n}) into m..n copies of what it
// repeats, nested ones multiplied, and reads the bound into a signed long without checking
// (fuzz_alert_rules: "{33333333333333333333}" overflowed): a rule file could make the daemon
// build a regex of billions of states, or hand it undefined behaviour. So a pattern is measured
// first: at most 1,024 characters, each bound at most 255 (POSIX's RE_DUP_MAX), and at most
// 10,000 atoms once its repetitions are expanded.
//
// Thread safety: pure functions.

#include <memory>
#include <regex>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::alerts::detail {

Result<std::shared_ptr<const std::regex>> compile_name_pattern(const std::string& pattern);

}  // namespace ibpulse::exporters::alerts::detail
