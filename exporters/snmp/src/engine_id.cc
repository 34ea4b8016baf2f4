#include "engine_id.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace ibpulse::exporters::snmp::detail {
namespace {

// RFC 3411 SnmpEngineID: bit 7 set, then net-snmp's enterprise number 8072, then format 5.
constexpr const char* kPrefix = "0x80001f8805";
constexpr size_t kRandomOctets = 16;

bool well_formed(const std::string& id) {
  return id.size() == std::string(kPrefix).size() + 2 * kRandomOctets && id.starts_with(kPrefix) &&
         id.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
}

}  // namespace

Result<std::string> load_or_create_engine_id(const std::string& dir) {
  const std::filesystem::path path = std::filesystem::path(dir) / "engine-id";
  if (std::filesystem::exists(path)) {
    std::ifstream in(path);
    std::string id;
    std::getline(in, id);
    if (!well_formed(id)) {
      return Err(
          "{}: not an engineID written by ibpulse; remove it to get a new one (SNMPv3 "
          "managers will then see a new engine)",
          path.string());
    }
    return id;
  }
  std::random_device random;
  std::string id = kPrefix;
  for (size_t i = 0; i < kRandomOctets; ++i)
    id += fmt::format("{:02x}", random() & 0xFF);
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << id << "\n";
    if (!out.flush()) return Err("cannot write {}", tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Err("cannot write {}: {}", path.string(), ec.message());
  return id;
}

}  // namespace ibpulse::exporters::snmp::detail
