#include "engine_id.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "ibpulse/base/atomic_file.h"

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
  if (Status written = write_file_atomically(path, id + "\n"); !written.ok())
    return Error{written.error()};
  return id;
}

// engine-boots holds "<boots> <engineID>": boots count for that ID only.
Result<uint32_t> next_engine_boots(const std::string& dir, const std::string& engine_id) {
  const std::filesystem::path path = std::filesystem::path(dir) / "engine-boots";
  uint64_t boots = 0;
  if (std::filesystem::exists(path)) {
    std::ifstream in(path);
    uint64_t recorded = 0;
    std::string recorded_id;
    if (!(in >> recorded >> recorded_id) || recorded == 0 || recorded > kMaxEngineBoots) {
      return Err(
          "{}: not an engine boots record written by ibpulse; remove it to start again at 1 "
          "(SNMPv3 managers may then refuse the agent until they rediscover it)",
          path.string());
    }
    if (recorded_id == engine_id) boots = recorded;
  }
  const auto next = static_cast<uint32_t>(std::min<uint64_t>(boots + 1, kMaxEngineBoots));
  if (Status written = write_file_atomically(path, fmt::format("{} {}\n", next, engine_id));
      !written.ok())
    return Error{written.error()};
  return next;
}

}  // namespace ibpulse::exporters::snmp::detail
