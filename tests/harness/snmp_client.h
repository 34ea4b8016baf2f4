#pragma once
// net-snmp's command-line tools for the SNMP tests: run one, parse its `-On -Oq` output.
#include <cstdint>
#include <map>
#include <string>

namespace ibpulse::testing {

struct SnmpToolRun {
  int status = -1;
  std::string out;  // standard output and error
};

// `args` (e.g. "snmpget -v2c -c public ...") run by the shell, loading no MIB files, with a
// persistent directory of its own, removed when the test binary exits.
SnmpToolRun snmp_tool(const std::string& args);

// `-On -Oq` output, "OID value" per line -> map; noSuch*/endOfMibView lines are left out and
// quoted strings unquoted.
std::map<std::string, std::string> parse_varbinds(const std::string& out);

// Joins the lines net-snmp wraps long hex strings onto to their varbind's line.
std::string unwrap_lines(const std::string& out);

// `bytes` octets of `v`, most significant first, as net-snmp prints an octet string in hex
// ("FE 80 00 ...": `-Ox` output, snmptrapd's Hex-STRING values).
std::string hex_octets(uint64_t v, int bytes);

}  // namespace ibpulse::testing
