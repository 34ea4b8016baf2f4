#include "ibpulse/exporters/snmp/endpoint.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <system_error>

#include "ibpulse/base/log_text.h"

namespace ibpulse::exporters::snmp {
namespace {

// <state dir>/snmp, created.
Result<std::string> snmp_state_dir(const std::filesystem::path& base) {
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

Result<std::unique_ptr<SnmpAgent>> start_snmp_agent(EndpointOptions endpoint,
                                                    const converters::SnapshotStore* snapshots,
                                                    const alerts::HealthStore* healths,
                                                    std::function<CollectorStatus()> status) {
  if (endpoint.agent.listen == "off") return std::unique_ptr<SnmpAgent>();
  AgentOptions options = std::move(endpoint.agent);
  // SNMPv3 needs the engineID and engine boots to persist (RFC 3414); v1/v2c need nothing kept,
  // so without users nothing is written to the state directory.
  for (const auto& address : endpoint.trap_sink_addresses) {
    TrapSink sink;
    sink.address = address;
    sink.community = endpoint.trap_community;
    if (auto valid = validate(sink); !valid) {
      return Err("--snmp.trap-sink {}: {}", address, valid.error());
    }
    options.trap_sinks.push_back(std::move(sink));
  }
  const bool v3_sinks =
      std::any_of(options.trap_sinks.begin(), options.trap_sinks.end(),
                  [](const auto& sink) { return sink.kind != TrapSink::Kind::kV2cTrap; });
  if (!options.users.empty() || v3_sinks) {
    Result<std::string> dir = snmp_state_dir(endpoint.state_dir);
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
      spdlog::error("event=snmp_error message=\"{}\"", log_text(message));
    } else if (priority == 4) {
      spdlog::warn("event=snmp_warning message=\"{}\"", log_text(message));
    } else {  // notice, info: e.g. a trap sink that answers again
      spdlog::info("event=snmp_notice message=\"{}\"", log_text(message));
    }
  };
  if (!options.agentx.empty() && !options.trap_sinks.empty()) {
    return Err(
        "trap sinks need ibpulse's own agent: in AgentX mode (snmp.agentx) leave "
        "snmp.trap-sink(s) empty and configure notification sinks in the host's snmpd");
  }
  if (options.agentx.empty() && options.communities.empty() && options.users.empty() &&
      options.trap_sinks.empty()) {
    spdlog::warn(
        "event=snmp_no_access note=\"the agent answers nobody: configure snmp.community "
        "(v2c) or snmp.users (SNMPv3), or set snmp.listen to off\"");
  }
  options.status = std::move(status);
  return SnmpAgent::start(std::move(options), snapshots, healths);
}

}  // namespace ibpulse::exporters::snmp
