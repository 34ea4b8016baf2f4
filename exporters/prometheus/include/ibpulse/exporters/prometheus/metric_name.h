#pragma once
// Prometheus naming rules the renderer relies on. Every fabric metric is
// `infiniband_port_<field>_<unit>_total`; the daemon's own metrics use `ibpulse_`.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>

#include "ibpulse/schema/counters.h"

namespace ibpulse::exporters::prometheus {

inline constexpr std::string_view kFabricPrefix = schema::kMetricPrefix;
inline constexpr std::string_view kSelfPrefix = "ibpulse_";

// [a-zA-Z_:][a-zA-Z0-9_:]* (the exposition format's metric name grammar).
bool is_valid_metric_name(std::string_view name);

// "PortXmitData" -> "xmit_data", "SymbolErrorCounter" -> "symbol_error": the IBA field name in
// snake case without the `Port` prefix and the `Counter` suffix.
std::string snake_case_field(std::string_view iba_field);

}  // namespace ibpulse::exporters::prometheus
