// Alert rules as the config file and --alerts.rules hand them on (JSON objects): any text gives
// rules or errors that say why, never a crash; every rule parsed can be evaluated.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/rule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::exporters::alerts;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const ParsedRules parsed = parse_rules({{text, "fuzz"}}, false);
  if (parsed.rules.empty()) return 0;
  ThresholdEngine engine(parsed.rules, {});
  ibpulse::converters::FabricSnapshot empty;
  engine.evaluate(empty, std::chrono::system_clock::now());
  return 0;
}
