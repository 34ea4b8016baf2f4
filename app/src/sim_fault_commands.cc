// `ibpulse sim error|link-down|link-up|bump`: the faults tests and demos inject.
#include <fmt/format.h>

#include "cli_support.h"
#include "commands.h"
#include "ibpulse/schema/attributes.h"
#include "ibpulse/sim/port_spec.h"
#include "ibpulse/sim/traffic.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;

struct FaultArgs {
  FabricOptions fo;
  std::string port;
};

// An attribute by IBA name (PortCounters) or number (0x12).
Result<unsigned> attribute_id(const std::string& text) {
  if (auto known = schema::find_attribute(text)) return static_cast<unsigned>(known->id);
  char* end = nullptr;
  const unsigned long id = std::strtoul(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || id == 0 || id > 0xffff) {
    return Err("unknown attribute '{}': give an IBA name (PortCounters) or a number (0x12)", text);
  }
  return static_cast<unsigned>(id);
}

int run_error(const FaultArgs& a, unsigned rate, const std::string& attribute) {
  auto spec = sim::parse_port_spec(a.port, true);
  if (!spec) return fail(spec.error());
  std::string line = fmt::format("Error {} {}", sim::console_port(*spec), rate);
  if (!attribute.empty()) {
    auto id = attribute_id(attribute);
    if (!id) return fail(id.error());
    line += fmt::format(" {}", *id);
  }
  auto s = running_fabric(a.fo);
  if (!s) return fail(s.error());
  auto reply = sim::console(*s).send(line);
  if (!reply) return fail(reply.error());
  fmt::print(stderr, "{}: {}% of {} now dropped (bounced with status 110)\n", a.port, rate,
             attribute.empty() ? std::string("MADs") : attribute + " MADs");
  return 0;
}

// Adds one to LinkDownedCounter at both ends, as hardware counts a lost link.
Status count_link_downed(const sim::FabricState& s, const sim::DumpPort& port) {
  for (const sim::PortSpec& end :
       {sim::PortSpec{port.node, port.port}, sim::PortSpec{port.remote_node, port.remote_port}}) {
    auto bumped = sim::bump_counter(s, end, "PortCounters", "LinkDownedCounter", 1);
    if (!bumped) return Error{bumped.error()};
  }
  return Ok{};
}

int run_link_down(const FaultArgs& a, bool count_downed) {
  auto spec = sim::parse_port_spec(a.port);
  if (!spec) return fail(spec.error());
  auto s = running_fabric(a.fo);
  if (!s) return fail(s.error());
  if (count_downed) {
    auto host = sim::attach_node_for(*s, spec->node);
    if (!host) return fail(host.error());
    if (auto attached = run_as_client(*s, *host); !attached) return fail(attached.error());
  }
  auto ports = sim::dump_ports(*s);
  if (!ports) return fail(ports.error());
  const sim::DumpPort* port = sim::find_port(*ports, spec->node, spec->port);
  if (port == nullptr) return fail(fmt::format("no port {} in fabric '{}'", a.port, s->name));
  if (!port->linked()) return fail(fmt::format("{} has no link to take down", a.port));
  if (count_downed) {
    if (auto counted = count_link_downed(*s, *port); !counted) return fail(counted.error());
  }
  auto reply = sim::console(*s).send("Unlink " + sim::console_port(*spec));
  if (!reply) return fail(reply.error());
  if (auto swept = sim::resweep(*s); !swept) return fail(swept.error());
  fmt::print(stderr, "{} <-> {}[{}] is down\n", a.port, port->remote_node, port->remote_port);
  return 0;
}

int run_link_up(const FaultArgs& a, unsigned timeout_s) {
  auto spec = sim::parse_port_spec(a.port);
  if (!spec) return fail(spec.error());
  auto s = running_fabric(a.fo);
  if (!s) return fail(s.error());
  auto reply = sim::console(*s).send("ReLink " + sim::console_port(*spec));
  if (!reply) return fail(reply.error());
  if (auto swept = sim::resweep(*s); !swept) return fail(swept.error());
  auto ports = sim::wait_for_ports(
      *s,
      [&](const std::vector<sim::DumpPort>& current) {
        const auto* p = sim::find_port(current, spec->node, spec->port);
        const auto* peer =
            p && p->linked() ? sim::find_port(current, p->remote_node, p->remote_port) : nullptr;
        return peer != nullptr && p->active() && peer->active();
      },
      std::chrono::seconds(timeout_s));
  if (!ports) return fail(fmt::format("{} did not come back Active: {}", a.port, ports.error()));
  fmt::print(stderr, "{} is Active again\n", a.port);
  return 0;
}

int run_lid(const FaultArgs& a, unsigned lid) {
  auto spec = sim::parse_port_spec(a.port);
  if (!spec) return fail(spec.error());
  auto s = running_fabric(a.fo);
  if (!s) return fail(s.error());
  if (auto changed = sim::change_lid(*s, spec->node, spec->port, lid); !changed) {
    return fail(changed.error());
  }
  fmt::print(stderr, "{} now has LID {}\n", a.port, lid);
  return 0;
}

int run_bump(const FaultArgs& a, const std::string& counter, uint64_t by) {
  auto spec = sim::parse_port_spec(a.port);
  if (!spec) return fail(spec.error());
  std::string attribute = "PortCounters";
  std::string field = counter;
  if (const auto dot = counter.find('.'); dot != std::string::npos) {
    attribute = counter.substr(0, dot);
    field = counter.substr(dot + 1);
  }
  auto s = running_fabric(a.fo);
  if (!s) return fail(s.error());
  // Counters are read by LID, which means something only in the port's own part.
  auto host = sim::attach_node_for(*s, spec->node);
  if (!host) return fail(host.error());
  if (auto attached = run_as_client(*s, *host); !attached) return fail(attached.error());
  auto value = sim::bump_counter(*s, *spec, attribute, field, by);
  if (!value) return fail(value.error());
  fmt::print("{}\n", *value);
  return 0;
}

}  // namespace

void add_sim_fault_commands(CLI::App& sim, Action& action) {
  {
    auto* error = sim.add_subcommand(
        "error", "Drop a percentage of the MADs crossing a port (ibsim `Error`); 0 stops it");
    auto a = std::make_shared<FaultArgs>();
    auto rate = std::make_shared<unsigned>(0);
    auto attribute = std::make_shared<std::string>();
    add_fabric_options(*error, a->fo);
    error->add_option("--attribute", *attribute,
                      "Drop only MADs of this attribute (IBA name like PortCounters, or 0x12)");
    error->add_option("port", a->port, "NODE[PORT], NODE:PORT, or NODE for all its ports")
        ->required();
    error->add_option("rate", *rate, "Percentage of MADs to drop, 0-100")
        ->required()
        ->check(CLI::Range(0u, 100u));
    error->callback([a, rate, attribute, &action] {
      action = [a, rate, attribute] { return run_error(*a, *rate, *attribute); };
    });
  }
  {
    auto* down = sim.add_subcommand(
        "link-down",
        "Take a link down (ibsim `Unlink`, both ends go Down/Polling) and have the "
        "subnet manager re-sweep");
    auto a = std::make_shared<FaultArgs>();
    auto count = std::make_shared<bool>(false);
    add_fabric_options(*down, a->fo);
    down->add_option("port", a->port, "NODE[PORT] or NODE:PORT, e.g. Hca1[1]")->required();
    down->add_flag("--count-downed", *count,
                   "Also add 1 to LinkDownedCounter at both ends, as hardware does (ibsim "
                   "does not count it itself)");
    down->callback(
        [a, count, &action] { action = [a, count] { return run_link_down(*a, *count); }; });
  }
  {
    auto* up = sim.add_subcommand(
        "link-up",
        "Restore a link taken down with link-down (ibsim `ReLink`), re-sweep, and "
        "wait until both ends are Active");
    auto a = std::make_shared<FaultArgs>();
    auto timeout = std::make_shared<unsigned>(60);
    add_fabric_options(*up, a->fo);
    up->add_option("port", a->port, "NODE[PORT] or NODE:PORT")->required();
    up->add_option("--timeout", *timeout, "Seconds to wait for Active")->capture_default_str();
    up->callback(
        [a, timeout, &action] { action = [a, timeout] { return run_link_up(*a, *timeout); }; });
  }
  {
    auto* lid = sim.add_subcommand(
        "lid",
        "Give a port a new LID as the subnet manager would (ibsim `Baselid`, LIDs "
        "assigned again keeping it, the resident SM restarted): LID changes to follow. A "
        "switch's LID is its port 0's: NODE[0]");
    auto a = std::make_shared<FaultArgs>();
    auto value = std::make_shared<unsigned>(0);
    add_fabric_options(*lid, a->fo);
    lid->add_option("port", a->port, "NODE[PORT] of an HCA")->required();
    lid->add_option("lid", *value, "The new LID")->required()->check(CLI::Range(1u, 0xBFFFu));
    lid->callback([a, value, &action] { action = [a, value] { return run_lid(*a, *value); }; });
  }
  {
    auto* bump = sim.add_subcommand(
        "bump",
        "Add to one counter of one port (read it, then PerformanceSet current + N); "
        "prints the new value, latched at the field's width as hardware does");
    auto a = std::make_shared<FaultArgs>();
    auto counter = std::make_shared<std::string>("LinkDownedCounter");
    auto by = std::make_shared<uint64_t>(1);
    add_fabric_options(*bump, a->fo);
    bump->add_option("port", a->port, "NODE[PORT] or NODE:PORT")->required();
    bump->add_option("--counter", *counter,
                     "[Attribute.]Field, ibsim spelling (default attribute PortCounters)")
        ->capture_default_str();
    bump->add_option("--by", *by, "Amount to add")->capture_default_str();
    bump->callback([a, counter, by, &action] {
      action = [a, counter, by] { return run_bump(*a, *counter, *by); };
    });
  }
}

}  // namespace ibpulse::cli
