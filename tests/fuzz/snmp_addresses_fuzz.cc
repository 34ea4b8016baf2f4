// SNMP addresses (snmp.listen, trap sinks, AgentX) and trap sink maps: a transport or an error,
// never a crash; what is accepted renders as net-snmp's syntax and parses back the same.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ibpulse/exporters/snmp/trap_sink.h"
#include "transport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::exporters::snmp;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto use : {detail::TransportUse::kListen, detail::TransportUse::kSink,
                         detail::TransportUse::kAgentX}) {
    const auto t = detail::parse_transport(text, use, "fuzz");
    if (!t) continue;
    const auto again = detail::parse_transport(t->spec(), use, "fuzz");
    if (!again || again->spec() != t->spec()) __builtin_trap();
  }
  if (auto node = ibpulse::parse_config_text(text, "fuzz")) (void)parse_trap_sink(*node);
  return 0;
}
