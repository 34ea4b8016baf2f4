// Alert rules as --alerts.rules hands them on (YAML flow text, JSON alike): any text gives
// rules or errors that say why, never a crash; every rule parsed can be evaluated.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/rule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::exporters::alerts;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto node = ibpulse::parse_config_text(text, "fuzz");
  if (!node) return 0;
  const ParsedRules parsed = parse_rules({*node}, false);
  if (parsed.rules.empty()) return 0;
  ThresholdEngine engine(parsed.rules, {});
  ibpulse::converters::FabricSnapshot empty;
  engine.evaluate(empty, std::chrono::system_clock::now());
  return 0;
}
