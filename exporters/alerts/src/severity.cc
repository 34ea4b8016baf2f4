#include "ibpulse/exporters/alerts/severity.h"

namespace ibpulse::exporters::alerts {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kMinor:
      return "minor";
    case Severity::kMajor:
      return "major";
    case Severity::kCritical:
      return "critical";
  }
  return "unknown";
}

std::optional<Severity> parse_severity(std::string_view text) {
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kMinor, Severity::kMajor,
                     Severity::kCritical}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace ibpulse::exporters::alerts
