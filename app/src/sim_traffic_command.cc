// `ibpulse sim traffic`: synthetic load and errors, with a per-port account of what it injected.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "config_flags.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/schema/counters.h"
#include "ibpulse/sim/port_spec.h"
#include "ibpulse/sim/traffic.h"

namespace ibpulse::cli {
namespace {

struct TrafficArgs {
  FabricOptions fo;
  double utilization = 0;
  double duration = 0;
  std::string errors;
  unsigned packet_bytes = 2048;
  unsigned tick_ms = 1000;
  unsigned part = 1;
  bool json = false;
  std::string hot_spot;
  std::string stuck;
  double wait_ratio = 0.5;
  double victim_utilization = 0.2;
  std::string xmit_wait_tick = fmt::format("{}ns", schema::kDefaultXmitWaitTickNs);
};

// A PortXmitWait tick's period in nanoseconds, fractions allowed ("2.5ns"), at most a second.
Result<double> parse_tick_ns(const std::string& text) {
  auto ns = parse_short_period_ns(text);
  if (!ns) {
    return Err("'{}' is not a PortXmitWait tick: write a period up to 1s, e.g. 4ns, 2.5ns or 1us",
               text);
  }
  return *ns;
}

// --hot-spot and --stuck: NODE, NODE[PORT] or NODE:PORT; NODE may be a 0x GUID.
Status set_congestion(const TrafficArgs& a, sim::TrafficOptions& o) {
  for (const auto& [text, target] :
       {std::pair{&a.hot_spot, &o.hot_spot}, std::pair{&a.stuck, &o.stuck}}) {
    if (text->empty()) continue;
    auto spec = sim::parse_port_spec(*text, true);
    if (!spec) return Error{spec.error()};
    *target = std::move(*spec);
  }
  auto tick = parse_tick_ns(a.xmit_wait_tick);
  if (!tick) return Error{tick.error()};
  o.xmit_wait_tick_ns = *tick;
  o.wait_ratio = a.wait_ratio;
  o.victim_utilization = a.victim_utilization;
  return Ok{};
}

nlohmann::json report_json(const sim::TrafficReport& r) {
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& p : r.ports) {
    ports.push_back({{"node", p.node},
                     {"port", p.port},
                     {"xmit_data_dwords", p.xmit_data_dwords},
                     {"rcv_data_dwords", p.rcv_data_dwords},
                     {"xmit_pkts", p.xmit_pkts},
                     {"rcv_pkts", p.rcv_pkts},
                     {"errors", p.errors},
                     {"latched", p.latched},
                     {"xmit_wait", p.xmit_wait},
                     {"role", p.role}});
  }
  return {{"ticks", r.ticks},
          {"seconds", r.seconds},
          {"console_lines", r.console_lines},
          {"ports", ports}};
}

void print_table(const sim::TrafficReport& r) {
  fmt::print("{:<24} {:>4} {:>16} {:>16} {:>12} {:>12} {:>12} {:<6}  {}\n", "node", "port",
             "xmit_dwords", "rcv_dwords", "xmit_pkts", "rcv_pkts", "xmit_wait", "role", "errors");
  for (const auto& p : r.ports) {
    std::string errors;
    for (const auto& [name, n] : p.errors)
      errors += fmt::format("{}={} ", name, n);
    fmt::print("{:<24} {:>4} {:>16} {:>16} {:>12} {:>12} {:>12} {:<6}  {}\n", p.node, p.port,
               p.xmit_data_dwords, p.rcv_data_dwords, p.xmit_pkts, p.rcv_pkts, p.xmit_wait, p.role,
               errors);
  }
}

// "utilization 25%, errors X=1, hot spot Hca3 (wait 0.5 of 4ns ticks, victims at 20%)".
std::string describe(const TrafficArgs& a) {
  std::vector<std::string> parts;
  if (a.utilization > 0) parts.push_back(fmt::format("utilization {:.0f}%", a.utilization * 100));
  if (!a.errors.empty()) parts.push_back("errors " + a.errors);
  const std::string& congested = a.hot_spot.empty() ? a.stuck : a.hot_spot;
  if (!congested.empty()) {
    parts.push_back(fmt::format("{} {} (wait {} of {} ticks, victims at {:.0f}%)",
                                a.hot_spot.empty() ? "stuck receiver" : "hot spot", congested,
                                a.wait_ratio, a.xmit_wait_tick, a.victim_utilization * 100));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// On a fabric of several parts, the generator reads counters by LID, which reach only the part
// it is attached in: it attaches at part `part`'s SM node and keeps to that part's nodes.
Result<std::optional<std::string>> attach_part(const sim::FabricState& s, unsigned part,
                                               sim::TrafficOptions& o) {
  if (part > s.parts.size()) {
    return Err("--part {}: fabric '{}' has {} part(s)", part, s.name, s.parts.size());
  }
  if (s.parts.size() < 2) return std::optional<std::string>();
  auto nodes = sim::part_node_ids(s, part - 1);
  if (!nodes) return Error{nodes.error()};
  o.nodes = std::move(*nodes);
  return std::optional<std::string>(s.parts[part - 1].attach_node);
}

int run_traffic(const TrafficArgs& a) {
  sim::TrafficOptions o;
  o.utilization = a.utilization;
  if (a.duration > 0) o.duration_s = a.duration;
  o.packet_bytes = a.packet_bytes;
  o.tick = std::chrono::milliseconds(a.tick_ms);
  if (!a.errors.empty()) {
    auto specs = sim::parse_error_specs(a.errors);
    if (!specs) return fail(specs.error());
    o.errors = std::move(*specs);
  }
  if (auto congestion = set_congestion(a, o); !congestion) return fail(congestion.error());
  if (o.utilization == 0 && o.errors.empty() && !o.hot_spot && !o.stuck) {
    return fail("nothing to generate: give --utilization above 0, --errors, --hot-spot or --stuck");
  }
  auto s = running_fabric(a.fo);
  if (!s) return fail(s.error());
  auto host = attach_part(*s, a.part, o);
  if (!host) return fail(host.error());
  if (auto attached = run_as_client(*s, *host); !attached) return fail(attached.error());
  // Registered as a client, so `sim down` stops a generator left running.
  if (auto self = sim::process_ref(::getpid())) sim::register_client(*s, *self);
  const auto& stop = install_stop_signals();
  fmt::print(stderr, "traffic on '{}': {}; Ctrl-C stops\n", s->name, describe(a));
  auto report = sim::run_traffic(*s, o, stop, [](const sim::TrafficReport& r) {
    spdlog::debug("traffic: tick {} at {:.1f} s, {} console lines so far", r.ticks, r.seconds,
                  r.console_lines);
  });
  sim::unregister_client(*s, ::getpid());
  if (!report) return fail(report.error());
  fmt::print(stderr, "traffic: {} ticks over {:.1f} s, {} PerformanceSet lines\n", report->ticks,
             report->seconds, report->console_lines);
  if (a.json) {
    fmt::print("{}\n", report_json(*report).dump(1));
  } else {
    print_table(*report);
  }
  return 0;
}

void add_congestion_options(CLI::App& traffic, TrafficArgs& a) {
  auto* hot = traffic.add_option(
      "--hot-spot", a.hot_spot,
      "Congest toward an HCA (NODE, NODE[PORT] or a 0x GUID): every other HCA port sends to it "
      "by the shortest path; the switch port feeding it (root) sends at 100% and waits, every "
      "other port on the paths (victim) sends at --victim-utilization and waits");
  auto* stuck = traffic.add_option(
      "--stuck", a.stuck,
      "An HCA port (NODE[PORT]) that stops returning credits: the switch port feeding it (root) "
      "waits and sends nothing; the ports upstream on the paths toward it wait as victims");
  hot->excludes(stuck);
  traffic
      .add_option("--wait-ratio", a.wait_ratio,
                  "Share of the time roots and victims wait: PortXmitWait += R * dt / tick")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  traffic
      .add_option("--victim-utilization", a.victim_utilization,
                  "Fraction of a victim's link data rate it still transmits, 0-1")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  traffic
      .add_option("--xmit-wait-tick", a.xmit_wait_tick,
                  "The PortXmitWait tick the waits are counted in (4ns, 2.5ns, 1us, ...)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            auto tick = parse_tick_ns(text);
            return tick ? std::string() : tick.error();
          },
          "DURATION"));
}

}  // namespace

void add_sim_traffic_command(CLI::App& sim, Action& action) {
  auto* traffic = sim.add_subcommand(
      "traffic",
      "Drive counters as traffic would: both ends of every active link move together, in "
      "PortCounters (32-bit, latching) and PortCountersExtended (64-bit), plus optional error "
      "counters. Prints what it injected per port (data in 4-byte words, as the counters).");
  auto a = std::make_shared<TrafficArgs>();
  add_fabric_options(*traffic, a->fo);
  traffic
      ->add_option("--utilization", a->utilization,
                   "Fraction of each link's data rate, 0-1, in both directions")
      ->check(CLI::Range(0.0, 1.0));
  add_seconds_option(*traffic, "--duration", a->duration,
                     "How long to run: seconds or a duration (90, 1m30s; default: until Ctrl-C)",
                     0.001, 1e9);
  traffic->add_option("--errors", a->errors,
                      "Error rules: [Attribute.]Field=RATE[@NODE[PORT]], comma-separated, RATE "
                      "per second per port, e.g. SymbolErrorCounter=5,PortRcvErrors=1@Hca1[1]");
  traffic->add_option("--packet-bytes", a->packet_bytes, "Average packet size")
      ->capture_default_str()
      ->check(CLI::Range(64u, 4224u));
  traffic->add_option("--tick-ms", a->tick_ms, "Milliseconds between counter updates")
      ->capture_default_str()
      ->check(CLI::Range(50u, 60000u));
  traffic
      ->add_option("--part", a->part,
                   "On a fabric of several disconnected parts (rails), the part to drive, "
                   "numbered from 1 as `sim up` lists them; one generator drives one part")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  add_congestion_options(*traffic, *a);
  traffic->add_flag("--json", a->json, "Print the per-port report as JSON");
  traffic->callback([a, &action] { action = [a] { return run_traffic(*a); }; });
}

}  // namespace ibpulse::cli
