#pragma once
// The PMA fields the simulator tools read (through libibmad's decoders, an independent
// check on the collector's own schema-driven ones) and write (ibsim's PerformanceSet names).

#include <span>
#include <string>
#include <string_view>

namespace ibpulse::sim {

struct PmaField {
  std::string_view name;  // as ibsim's PerformanceSet spells it
  int mad_field;          // libibmad's enum MAD_FIELDS
  unsigned width;         // bits
};

struct PmaAttribute {
  std::string_view name;
  int attribute_id;
  std::span<const PmaField> fields;
};

const PmaAttribute* find_pma_attribute(std::string_view name);
const PmaField* find_pma_field(const PmaAttribute& attribute, std::string_view field);

// Data and packet counters, which the traffic part of the generator moves.
bool is_traffic_field(std::string_view field);

// "PortCounters.SymbolErrorCounter, ..." for error messages.
std::string injectable_field_names();

}  // namespace ibpulse::sim
