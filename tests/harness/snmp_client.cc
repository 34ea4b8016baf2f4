#include "snmp_client.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace ibpulse::testing {

SnmpToolRun snmp_tool(const std::string& args) {
  struct ClientDir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / fmt::format("ibpulse-snmp-client-{}", getpid());
    // With cert_indexes made here: the first tool to run would make it and say so in its
    // output ("Created directory: ..."), which only the first request of a process would show.
    ClientDir() { std::filesystem::create_directories(path / "cert_indexes"); }
    ~ClientDir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const ClientDir client_dir;
  const std::string dir = client_dir.path.string();
  const std::string command =
      "MIBS= SNMP_PERSISTENT_DIR=" + dir + " SNMPCONFPATH=" + dir + " " + args + " 2>&1";
  SnmpToolRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0)
    run.out.append(buf, n);
  run.status = ::pclose(pipe);
  return run;
}

std::map<std::string, std::string> parse_varbinds(const std::string& out) {
  std::map<std::string, std::string> values;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.find(' ');
    if (!line.starts_with(".1.") || space == std::string::npos) continue;
    std::string value = line.substr(space + 1);
    if (value.starts_with("No Such") || value.starts_with("No more variables")) continue;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);  // -Oq quotes strings
    values[line.substr(0, space)] = value;
  }
  return values;
}

std::string unwrap_lines(const std::string& out) {
  std::string joined;
  for (size_t i = 0; i < out.size(); ++i) {
    const bool continuation = out[i] == '\n' && i + 1 < out.size() && out[i + 1] != '.';
    joined += continuation ? ' ' : out[i];
  }
  return joined;
}

std::string hex_octets(uint64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i)
    out += fmt::format("{}{:02X}", out.empty() ? "" : " ", (v >> (8 * i)) & 0xFF);
  return out;
}

}  // namespace ibpulse::testing
