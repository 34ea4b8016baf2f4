#pragma once
// Alert severities shared by the threshold engine, SNMP notifications and Prometheus rules.
//
// Thread safety: pure functions.

#include <optional>
#include <string_view>

namespace ibpulse::exporters::alerts {

enum class Severity { kInfo, kWarning, kCritical };

std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);

}  // namespace ibpulse::exporters::alerts
