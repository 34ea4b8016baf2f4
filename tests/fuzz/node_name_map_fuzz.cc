// ib-node-name-map files (fabric.node-name-map): any bytes give a map or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ibpulse/collector/discovery.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto map = ibpulse::collector::parse_node_name_map(text, "fuzz");
  if (map) {
    for (const auto& [guid, name] : *map) {
      if (name.find('\n') != std::string::npos) __builtin_trap();  // one line, one name
    }
  }
  return 0;
}
