// fabric.ports: which local ports the daemon polls through, grouped by subnet.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ibpulse/collector/discovery.h"
#include "ibpulse/daemon/config.h"

namespace ibpulse::daemon {
namespace {

std::string name_of(const collector::LocalPort& p) {
  return fmt::format("{}:{}", p.ca, p.port);
}

std::string port_list(const std::vector<collector::LocalPortInfo>& ports) {
  std::string out;
  for (const auto& p : ports)
    out += fmt::format("{}{}", out.empty() ? "" : ",", name_of(p.port));
  return out;
}

}  // namespace

Result<LocalSubnets> local_subnets(const DaemonConfig& config) {
  LocalSubnets out;
  if (config.local_ports.empty() && !config.all_local_ports) {
    // The one port libibumad picks for fabric.ca/fabric.ca-port ("" and 0: the first active).
    const auto& d = config.poller.discovery;
    auto used = collector::local_port_in_use(d.ca, d.ca_port);
    out.ports.emplace_back();
    out.names.push_back({0, used ? name_of(*used) : name_of({d.ca, d.ca_port})});
    spdlog::info("event=local_ports ports={} subnets=1", out.names.back().local_port);
    return out;
  }
  auto present = collector::list_local_ports();
  if (!present) return Error{present.error()};
  auto chosen = collector::resolve_local_ports(config.local_ports, *present);
  if (!chosen) return Error{chosen.error()};
  std::vector<std::vector<collector::LocalPortInfo>> groups{*chosen};
  if (chosen->size() > 1) {
    auto grouped = collector::group_by_subnet(*chosen, [&](const collector::LocalPort& through) {
      auto options = config.poller.discovery;
      options.cache_file.clear();  // the pollers' caches are theirs to read and write
      options.ca = through.ca;
      options.ca_port = through.port;
      return collector::discover(options);
    });
    if (!grouped) return Error{grouped.error()};
    groups = std::move(*grouped);
  }
  spdlog::info("event=local_ports ports={} subnets={}", port_list(*chosen), groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    std::vector<collector::LocalPort> ports;
    for (const auto& p : groups[i])
      ports.push_back(p.port);
    out.names.push_back({0, name_of(ports.front())});
    if (groups.size() > 1)
      spdlog::info("event=subnet subnet={} local_ports={}", out.names.back().local_port,
                   port_list(groups[i]));
    out.ports.push_back(std::move(ports));
  }
  return out;
}

}  // namespace ibpulse::daemon
