#include "snmp_endpoint.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <system_error>

namespace ibpulse::cli {
namespace {

// <state dir>/snmp, created.
Result<std::string> snmp_state_dir(const DaemonConfig& config) {
  const std::filesystem::path base =
      config.state_dir.empty() ? default_state_dir() : std::filesystem::path(config.state_dir);
  if (base.empty()) {
    return Err(
        "SNMPv3 users need the engine ID and boots kept in the state directory: set "
        "state.dir");
  }
  const std::filesystem::path dir = base / "snmp";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Err("cannot create the SNMP state directory {}: {}", dir.string(), ec.message());
  return dir.string();
}

}  // namespace

Result<std::unique_ptr<exporters::snmp::SnmpAgent>> start_snmp_agent(
    const DaemonConfig& config, const converters::SnapshotStore* snapshots) {
  if (config.snmp.listen == "off") return std::unique_ptr<exporters::snmp::SnmpAgent>();
  exporters::snmp::AgentOptions options = config.snmp;
  // SNMPv3 needs the engineID and engine boots to persist (RFC 3414); v1/v2c need nothing kept,
  // so without users nothing is written to the state directory.
  if (!options.users.empty()) {
    Result<std::string> dir = snmp_state_dir(config);
    if (!dir.ok()) return Error{dir.error()};
    options.state_dir = *dir;
  }
  if (options.system.name.empty()) {
    std::array<char, 256> host{};
    if (gethostname(host.data(), host.size() - 1) == 0) options.system.name = host.data();
  }
  options.system.descr =
      fmt::format("ibpulse {}: InfiniBand fabric counters (IF-MIB, IB-IF-MIB)", IBPULSE_VERSION);
  options.log = [](int priority, std::string_view message) {
    if (priority <= 3) {
      spdlog::error("event=snmp_error message=\"{}\"", message);
    } else {
      spdlog::warn("event=snmp_warning message=\"{}\"", message);
    }
  };
  if (options.agentx.empty() && options.communities.empty() && options.users.empty()) {
    spdlog::warn(
        "event=snmp_no_access note=\"the agent answers nobody: configure snmp.community "
        "(v2c) or snmp.users (SNMPv3), or set snmp.listen to off\"");
  }
  return exporters::snmp::SnmpAgent::start(std::move(options), snapshots);
}

}  // namespace ibpulse::cli
