#pragma once
// Port and error-rate specifications as operators type them on the command line.
//
// Thread safety: pure functions.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::sim {

struct PortSpec {
  std::string node;
  unsigned port = 0;  // 0: every port of the node (where the command allows it)
};

// `Hca1[1]`, `"Hca1"[1]`, `Hca1:1`, or `Hca1` when `allow_all_ports`.
Result<PortSpec> parse_port_spec(std::string_view text, bool allow_all_ports = false);

// `"Hca1"[1]`, as ibsim's console wants it.
std::string console_port(const PortSpec& spec);

// One error-injection rule: `[Attribute.]Field=RATE[@PORTSPEC]`, RATE per second per port.
// The attribute defaults to PortCounters; without a port the rule covers every linked port.
struct ErrorSpec {
  std::string attribute = "PortCounters";
  std::string field;
  double per_second = 0;
  std::optional<PortSpec> where;
};

// A comma-separated list of rules. Fields are checked against what the generator can read.
Result<std::vector<ErrorSpec>> parse_error_specs(std::string_view text);

// Counter fields the generator can read back and move, per attribute (ibsim's spelling).
bool is_injectable_field(std::string_view attribute, std::string_view field);

}  // namespace ibpulse::sim
