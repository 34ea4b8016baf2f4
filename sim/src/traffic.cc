#include "ibpulse/sim/traffic.h"

#include <cstdlib>
#include <map>
#include <set>

#include "pma_reader.h"
#include "traffic_congestion.h"
#include "traffic_generator.h"

namespace ibpulse::sim {

std::optional<double> link_bytes_per_second(std::string_view width, std::string_view speed) {
  static const std::map<std::string_view, double> kLanes = {
      {"1x", 1}, {"2x", 2}, {"4x", 4}, {"8x", 8}, {"12x", 12}};
  // Signalling rate -> data rate per lane after 8b/10b (SDR-QDR) or 64b/66b (FDR, EDR).
  static const std::map<std::string_view, double> kLaneGbps = {
      {"2.5G", 2.0}, {"5.0G", 4.0}, {"10.0G", 8.0}, {"14G", 13.64}, {"25G", 25.0}};
  auto lanes = kLanes.find(width);
  auto gbps = kLaneGbps.find(speed);
  if (lanes == kLanes.end() || gbps == kLaneGbps.end()) return std::nullopt;
  return lanes->second * gbps->second * 1e9 / 8;
}

Result<TrafficReport> run_traffic(const FabricState& fabric, const TrafficOptions& options,
                                  const std::atomic<bool>& stop, const TickFn& on_tick) {
  if (options.utilization < 0 || options.utilization > 1) {
    return Err("utilization must be between 0 and 1, got {}", options.utilization);
  }
  if (auto congestion = check_congestion_options(options); !congestion) {
    return Error{congestion.error()};
  }
  if (options.utilization == 0 && options.errors.empty() && !options.hot_spot && !options.stuck) {
    return Err(
        "nothing to generate: give a utilization above 0, error rules or a congestion "
        "scenario");
  }
  if (options.packet_bytes == 0) return Err("packet size must be positive");
  auto ports = dump_ports(fabric);
  if (!ports) return Error{ports.error()};
  if (!options.nodes.empty()) {
    const std::set<std::string_view> keep(options.nodes.begin(), options.nodes.end());
    std::erase_if(*ports, [&](const DumpPort& p) { return !keep.contains(p.node); });
  }
  auto reader = PmaReader::open();
  if (!reader) return Error{reader.error()};
  Generator generator(fabric, options, std::move(*ports), std::move(*reader));
  if (auto prepared = generator.prepare(); !prepared) return Error{prepared.error()};
  return generator.run(stop, on_tick);
}

Result<uint64_t> bump_counter(const FabricState& fabric, const PortSpec& spec,
                              std::string_view attribute_name, std::string_view field_name,
                              uint64_t by) {
  const PmaAttribute* attribute = find_pma_attribute(attribute_name);
  if (attribute == nullptr || find_pma_field(*attribute, field_name) == nullptr) {
    return Err("unknown counter {}.{}", attribute_name, field_name);
  }
  auto ports = dump_ports(fabric);
  if (!ports) return Error{ports.error()};
  const DumpPort* port = find_port(*ports, spec.node, spec.port);
  if (port == nullptr) return Err("no port {}[{}] in the fabric", spec.node, spec.port);
  if (port->lid == 0) return Err("{}[{}] has no LID (is it down?)", spec.node, spec.port);
  auto reader = PmaReader::open();
  if (!reader) return Error{reader.error()};
  auto values = (*reader)->read(*attribute, port->lid, port->port);
  if (!values) return Error{values.error()};
  const uint64_t target = saturating_add(values->find(field_name)->second, by);
  auto reply = console(fabric).send(set_line(*port, attribute_name, field_name, target));
  if (!reply) return Error{reply.error()};
  const auto at = reply->rfind("set to ");
  if (at == std::string::npos) return Err("unexpected ibsim reply: {}", *reply);
  return std::strtoull(reply->c_str() + at + 7, nullptr, 10);
}

}  // namespace ibpulse::sim
