// `ibpulse query`: every counter of one port, raw, like a faster perfquery, with the IF-MIB
// values derived from them; `--all`: discovery plus one pipelined sweep of every port, the job
// ibqueryerrors does.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_support.h"
#include "commands.h"
#include "config_flags.h"
#include "ibpulse/base/number.h"
#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/sweep.h"
#include "query_if_mib.h"

namespace ibpulse::cli {
namespace {

using collector::guid_string;
using schema::Attribute;

constexpr Attribute kPortAttributes[] = {
    Attribute::kPortCounters,
    Attribute::kPortCountersExtended,
    Attribute::kPortRcvErrorDetails,
    Attribute::kPortXmitDiscardDetails,
    Attribute::kPortOpRcvCounters,
    Attribute::kPortFlowCtlCounters,
    Attribute::kPortVLOpPackets,
    Attribute::kPortVLOpData,
    Attribute::kPortVLXmitFlowCtlUpdateErrors,
    Attribute::kPortVLXmitWaitCounters,
    Attribute::kPortExtendedSpeedsCounters,
};
// What ibqueryerrors --data --details reads.
constexpr Attribute kSweepAttributes[] = {
    Attribute::kPortCounters, Attribute::kPortCountersExtended, Attribute::kPortRcvErrorDetails,
    Attribute::kPortXmitDiscardDetails};

struct QueryArgs {
  config::FlagValues flags;
  collector::PollerOptions fabric;  // from the flags, once parsed
  std::string target;
  std::optional<unsigned> port;  // default 1; 0 is a switch's management port
  bool all = false;
  bool json = false;
};

bool rsfec(const QueryArgs& a) {
  return a.fabric.ext_speeds_layout == collector::ExtSpeedsLayoutMode::kRsFec;
}

schema::Layout layout_of(const QueryArgs& a) {
  return rsfec(a) ? schema::Layout::kRsFec : schema::Layout::kStandard;
}

// The flags, with query's own default layout (legacy: it reads without asking PortInfoExtended).
Status resolve_flags(QueryArgs& a) {
  collector::PollerOptions defaults;
  defaults.ext_speeds_layout = collector::ExtSpeedsLayoutMode::kLegacy;
  auto options = fabric_options(a.flags, defaults);
  if (!options) return Error{options.error()};
  if (options->ext_speeds_layout == collector::ExtSpeedsLayoutMode::kAuto) {
    return Err(
        "--collect.ext-speeds-layout: 'auto': query decodes without asking PortInfoExtended; "
        "give legacy or rsfec");
  }
  a.fabric = std::move(*options);
  return Ok{};
}

std::string attribute_name(Attribute a) {
  auto info = schema::find_attribute(a);
  return info ? std::string(info->name) : fmt::format("0x{:02x}", static_cast<int>(a));
}

std::string failure_text(const collector::RawSample& s) {
  if (s.failure == collector::MadFailure::kStatus) {
    return fmt::format("not supported by the port (MAD status 0x{:04x})", s.mad_status);
  }
  if (s.failure == collector::MadFailure::kUnreachable) {
    return "no answer: the request came back undelivered (attribute not served?)";
  }
  return std::string(collector::to_string(s.failure));
}

nlohmann::json sample_json(const collector::RawSample& s,
                           const std::optional<collector::PmaCapabilities>& caps) {
  if (s.failure != collector::MadFailure::kNone) return {{"error", failure_text(s)}};
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json unsupported = nlohmann::json::array();
  const auto fields = schema::fields_of(s.attribute, s.layout);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (caps && !collector::supports(*caps, fields[i])) {
      out[std::string(fields[i].name)] = nullptr;
      unsupported.push_back(fields[i].name);
    } else {
      out[std::string(fields[i].name)] = s.values[i];
    }
  }
  if (!unsupported.empty()) out["unsupported"] = std::move(unsupported);
  return out;
}

std::string unit_text(const schema::Field& f, uint64_t raw) {
  switch (f.unit) {
    case schema::Unit::kBytes:
      return fmt::format("{} bytes", raw * f.scale);
    case schema::Unit::kPackets:
      return "packets";
    case schema::Unit::kTicks:
      return "ticks";
    case schema::Unit::kBlocks:
      return "blocks";
    case schema::Unit::kSymbols:
      return "symbols";
    case schema::Unit::kEvents:
      break;
  }
  return "";
}

void print_sample(const collector::RawSample& s,
                  const std::optional<collector::PmaCapabilities>& caps) {
  fmt::print("{}:\n", attribute_name(s.attribute));
  if (s.failure != collector::MadFailure::kNone) {
    fmt::print("  ({})\n", failure_text(s));
    return;
  }
  const auto fields = schema::fields_of(s.attribute, s.layout);
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    if (caps && !collector::supports(*caps, f)) {
      fmt::print("  {:<34} {:>20}\n", f.name, "not advertised");
      continue;
    }
    const bool latched = f.latches() && s.values[i] == (uint64_t{1} << f.width) - 1;
    fmt::print("  {:<34} {:>20}  {}{}\n", f.name, s.values[i], unit_text(f, s.values[i]),
               latched ? " (latched)" : "");
  }
}

Result<std::unique_ptr<collector::MadEngine>> open_engine(const QueryArgs& a) {
  collector::MadEngineOptions o = a.fabric.mad;
  o.window = collector::capped_window(o.window, collector::current_mad_environment());
  return collector::MadEngine::open(a.fabric.discovery.ca, a.fabric.discovery.ca_port, o);
}

std::optional<uint16_t> parse_lid(std::string_view text) {
  unsigned value = 0;
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  if (hex) text.remove_prefix(2);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, hex ? 16 : 10);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  if (hex && text.size() > 4) return std::nullopt;  // longer hex numbers are GUIDs
  if (value == 0 || value > 0xBFFF) return std::nullopt;
  return static_cast<uint16_t>(value);
}

// A port to read, and its link when discovery saw it (a GUID target).
struct Resolved {
  collector::SweepTarget target;
  std::optional<collector::LinkState> link;
};

// A GUID target: find its port (a port GUID, or a node GUID and a port number).
Result<Resolved> resolve_guid(const QueryArgs& a) {
  const auto parsed = parse_guid(a.target);
  if (!parsed) return Err("'{}' is neither a LID (1-49151) nor a GUID (0x...)", a.target);
  const uint64_t guid = *parsed;
  auto options = a.fabric.discovery;
  options.switch_port0 = true;  // a switch's port 0 may be asked for by node GUID
  auto topology = collector::discover(options);
  if (!topology) return Error{topology.error()};
  for (const auto& p : topology->ports) {
    if (p.port_guid == guid && (!a.port || *a.port == p.key.port) &&
        topology->find_node(p.key.node_guid)->kind != collector::NodeKind::kSwitch) {
      return Resolved{{p.key, p.lid}, p.link};
    }
  }
  if (const auto* node = topology->find_node(guid)) {
    const uint8_t port = static_cast<uint8_t>(a.port.value_or(1));
    if (const auto* p = topology->find_port({guid, port}))
      return Resolved{{p->key, p->lid}, p->link};
    return Err("node {} ({}) has no port {}", guid_string(guid), node->name, port);
  }
  return Err("no node or port with GUID {} in the fabric", guid_string(guid));
}

int query_one(const QueryArgs& a) {
  collector::SweepTarget target;
  std::optional<collector::LinkState> link;
  if (auto lid = parse_lid(a.target)) {
    target = {{0, static_cast<uint8_t>(a.port.value_or(1))}, *lid};
  } else {
    auto resolved = resolve_guid(a);
    if (!resolved) return fail(resolved.error());
    target = resolved->target;
    link = resolved->link;
  }
  target.ext_speeds_layout = layout_of(a);
  auto engine = open_engine(a);
  if (!engine) return fail(engine.error());
  collector::CapabilityCache caps;
  auto result = collector::sweep(**engine, std::span(&target, 1), kPortAttributes, caps);
  const auto& node_caps = caps[target.key.node_guid];
  if (!node_caps) {
    return fail(fmt::format("LID {} port {}: the PMA does not answer ClassPortInfo", target.lid,
                            target.key.port));
  }
  const auto if_mib = if_mib_of(result.samples, target.key, link);
  if (a.json) {
    nlohmann::json out{{"lid", target.lid},
                       {"port", target.key.port},
                       {"ClassPortInfo",
                        {{"CapabilityMask", node_caps->capability_mask},
                         {"CapabilityMask2", node_caps->capability_mask2}}},
                       {"ext_speeds_layout", rsfec(a) ? "rsfec" : "legacy"}};
    for (const auto& s : result.samples)
      out[attribute_name(s.attribute)] = sample_json(s, node_caps);
    if (if_mib) {
      out["if_mib"] = if_mib_json(*if_mib);
      out["if_mib_inputs"] = if_mib_inputs_json(*if_mib);
    }
    fmt::print("{}\n", out.dump(1));
    return 0;
  }
  fmt::print("LID {} port {}  CapabilityMask 0x{:04x}  CapabilityMask2 0x{:x}\n", target.lid,
             target.key.port, node_caps->capability_mask, node_caps->capability_mask2);
  for (const auto& s : result.samples)
    print_sample(s, node_caps);
  if (if_mib) print_if_mib(*if_mib);
  return 0;
}

bool has_errors(const collector::RawSample& s,
                const std::optional<collector::PmaCapabilities>& caps) {
  if (s.failure != collector::MadFailure::kNone) return false;
  const auto fields = schema::fields_of(s.attribute, s.layout);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (caps && !collector::supports(*caps, fields[i])) continue;
    if (fields[i].unit == schema::Unit::kEvents && s.values[i] != 0) return true;
  }
  return false;
}

int query_all(const QueryArgs& a) {
  Progress progress;
  progress("discovering", 0, 0);
  auto topology = collector::discover(a.fabric.discovery);
  if (!topology) return fail(topology.error());
  std::vector<collector::SweepTarget> targets;
  for (const auto& p : topology->ports) {
    if (p.remote && p.active()) targets.push_back({p.key, p.lid, layout_of(a)});
  }
  auto engine = open_engine(a);
  if (!engine) return fail(engine.error());
  collector::CapabilityCache caps;
  auto result =
      collector::sweep(**engine, targets, kSweepAttributes, caps,
                       [&](size_t done, size_t total) { progress("reading ports", done, total); });
  progress.finish();
  const auto& stats = (*engine)->stats();
  fmt::print(stderr,
             "{} ports read ({} failed) on {} nodes in {:.2f} s: {} MADs sent, {} timed out, {} "
             "returned undelivered, {} retried\n",
             targets.size(), result.ports_failed, topology->nodes.size(), result.seconds,
             stats.sent, stats.attempt_timeouts, stats.attempt_unreachable, stats.retried);
  nlohmann::json ports = nlohmann::json::object();
  for (const auto& s : result.samples) {
    const auto* node = topology->find_node(s.port.node_guid);
    if (a.json) {
      const std::string key = fmt::format("{}/{}", guid_string(s.port.node_guid), s.port.port);
      auto& entry = ports[key];
      if (entry.is_null()) {
        entry = {{"node_guid", guid_string(s.port.node_guid)},
                 {"node", node ? node->name : ""},
                 {"port", s.port.port},
                 {"lid", topology->find_port(s.port)->lid}};
      }
      entry[attribute_name(s.attribute)] = sample_json(s, caps[s.port.node_guid]);
    } else if (has_errors(s, caps[s.port.node_guid]) || s.failure != collector::MadFailure::kNone) {
      fmt::print("{} ({}) port {}: ", node ? node->name : "?", guid_string(s.port.node_guid),
                 s.port.port);
      print_sample(s, caps[s.port.node_guid]);
    }
  }
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (auto& entry : ports)  // an object's values, in key order
      list.push_back(std::move(entry));
    fmt::print("{}\n", nlohmann::json{{"ports", std::move(list)}}.dump(1));
  }
  return result.ports_failed == 0 ? 0 : kFailed;
}

}  // namespace

void add_query_command(CLI::App& app, Action& action) {
  auto* query = app.add_subcommand(
      "query",
      "Read every counter of one port (PortCounters, PortCountersExtended, error and discard "
      "details, flow control, per-VL and per-OpCode counters, extended speeds), raw, with "
      "units, and the IF-MIB values derived from them (IB-IF-MIB draft): a faster, friendlier "
      "perfquery. --all discovers the fabric and reads every active port in one pipelined "
      "sweep, like ibqueryerrors.");
  auto a = std::make_shared<QueryArgs>();
  query->add_option("target", a->target, "LID (decimal or 0x1234) or node/port GUID (0x...)");
  query->add_option("port", a->port, "Port number (default 1; 0: a switch's management port)")
      ->check(CLI::Range(0u, 254u));
  query->add_flag("--all", a->all, "Every active port of the fabric");
  query->add_flag("--json", a->json,
                  "JSON: one member per attribute (IBA names), fields named as perfquery prints "
                  "them, raw values; unsupported fields are null and listed; \"if_mib\": the "
                  "derived IF-MIB values (ifInOctets, ...), \"if_mib_inputs\": what they include");
  add_fabric_flags(*query, a->flags, kDiscoveryKeys);
  add_fabric_flags(*query, a->flags, kMadKeys);
  add_fabric_flags(*query, a->flags, {"collect.ext-speeds-layout"});
  query->callback([a, &action] {
    action = [a] {
      if (a->all == !a->target.empty()) {
        return fail("give a LID or GUID to query one port, or --all for every port");
      }
      if (Status s = resolve_flags(*a); !s) return fail(s.error());
      return a->all ? query_all(*a) : query_one(*a);
    };
  });
}

}  // namespace ibpulse::cli
