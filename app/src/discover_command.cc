// `ibpulse discover`: the fabric's topology as a table or JSON, like a friendlier ibnetdiscover.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "config_flags.h"
#include "ibpulse/collector/discovery.h"

namespace ibpulse::cli {
namespace {

using collector::guid_string;

nlohmann::json port_json(const collector::Port& p) {
  nlohmann::json j{{"port", p.key.port},
                   {"port_guid", guid_string(p.port_guid)},
                   {"lid", p.lid},
                   {"lmc", p.lmc},
                   {"state", collector::state_name(p.link.state)},
                   {"phys_state", collector::phys_state_name(p.link.phys_state)},
                   {"width", collector::width_name(p.link.width_active)},
                   {"speed", collector::speed_name(p.link)},
                   {"width_supported", p.link.width_supported},
                   {"width_enabled", p.link.width_enabled},
                   {"speed_supported", p.link.speed_supported},
                   {"speed_enabled", p.link.speed_enabled},
                   {"speed_ext_supported", p.link.speed_ext_supported},
                   {"speed_ext_enabled", p.link.speed_ext_enabled},
                   {"mtu", p.link.mtu},
                   {"capability_mask", p.capability_mask}};
  if (p.remote) {
    j["remote"] = {{"node_guid", guid_string(p.remote->node_guid)}, {"port", p.remote->port}};
  }
  return j;
}

nlohmann::json topology_json(const collector::Topology& t) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : t.nodes) {
    nlohmann::json ports = nlohmann::json::array();
    for (uint8_t i = 1; i <= n.num_ports; ++i) {
      if (const auto* p = t.find_port({n.guid, i})) ports.push_back(port_json(*p));
    }
    nodes.push_back({{"guid", guid_string(n.guid)},
                     {"type", collector::to_string(n.kind)},
                     {"description", n.description},
                     {"name", n.name},
                     {"num_ports", n.num_ports},
                     {"system_image_guid", guid_string(n.system_image_guid)},
                     {"lid", n.lid},
                     {"ports", std::move(ports)}});
  }
  return {{"subnet_prefix", guid_string(t.subnet_prefix)}, {"nodes", std::move(nodes)}};
}

void print_table(const collector::Topology& t, bool all_ports) {
  fmt::print("{:<24} {:<6} {:<18} {:>5} {:>4} {:<7} {:<5} {:<5} {}\n", "NODE", "TYPE", "GUID",
             "LID", "PORT", "STATE", "WIDTH", "SPEED", "PEER");
  for (const auto& n : t.nodes) {
    for (uint8_t i = 1; i <= n.num_ports; ++i) {
      const auto* p = t.find_port({n.guid, i});
      if (p == nullptr || (!all_ports && !p->remote)) continue;
      std::string peer;
      if (p->remote) {
        const auto* remote = t.find_node(p->remote->node_guid);
        peer = fmt::format("{}[{}]", remote ? remote->name : guid_string(p->remote->node_guid),
                           p->remote->port);
      }
      fmt::print("{:<24} {:<6} {:<18} {:>5} {:>4} {:<7} {:<5} {:<5} {}\n", n.name,
                 collector::to_string(n.kind), guid_string(n.guid), p->lid, i,
                 collector::state_name(p->link.state), collector::width_name(p->link.width_active),
                 collector::speed_name(p->link), peer);
    }
  }
}

struct DiscoverArgs {
  config::FlagValues flags;
  bool json = false;
  bool all_ports = false;
};

int run_discover(const DiscoverArgs& a) {
  auto options = fabric_options(a.flags);
  if (!options) return fail(options.error());
  const auto started = std::chrono::steady_clock::now();
  auto topology = collector::discover(options->discovery);
  if (!topology) return fail(topology.error());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  size_t active = 0;
  size_t linked = 0;
  for (const auto& p : topology->ports) {
    active += p.active();
    linked += p.remote.has_value();
  }
  fmt::print(stderr,
             "{} nodes ({} switches), {} ports ({} active, {} linked), subnet {} in {:.2f} s\n",
             topology->nodes.size(), topology->switch_count(), topology->ports.size(), active,
             linked, guid_string(topology->subnet_prefix), seconds);
  if (a.json) {
    fmt::print("{}\n", topology_json(*topology).dump(1));
  } else {
    print_table(*topology, a.all_ports);
  }
  return 0;
}

}  // namespace

void add_discover_command(CLI::App& app, Action& action) {
  auto* discover = app.add_subcommand(
      "discover",
      "Discover the fabric (libibnetdisc, in-process) and print every node and port: "
      "names, GUIDs, LIDs, link state, width, speed and peer. On the simulated fabric "
      "run it with `ibpulse sim exec --name NAME -- ibpulse discover`.");
  auto a = std::make_shared<DiscoverArgs>();
  add_fabric_flags(*discover, a->flags, kDiscoveryKeys);
  discover->add_flag("--json", a->json, "Print JSON: every node with every port");
  discover->add_flag("--all-ports", a->all_ports, "List ports without a link too");
  discover->callback([a, &action] { action = [a] { return run_discover(*a); }; });
}

}  // namespace ibpulse::cli
