#pragma once
// Alert severities shared by the threshold engine, SNMP notifications and Prometheus rules.
// The numbers are IBPULSE-MIB's IbpulseSeverity values.
//
// Thread safety: pure functions.

#include <optional>
#include <string_view>

namespace ibpulse::exporters::alerts {

enum class Severity { kInfo = 1, kWarning = 2, kMinor = 3, kMajor = 4, kCritical = 5 };

std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);

}  // namespace ibpulse::exporters::alerts
