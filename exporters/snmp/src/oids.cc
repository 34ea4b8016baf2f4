#include "ibpulse/exporters/snmp/oids.h"

#include <fmt/format.h>

namespace ibpulse::exporters::snmp {

std::string to_string(const Oid& oid) {
  return fmt::format("{}", fmt::join(oid, "."));
}

}  // namespace ibpulse::exporters::snmp
