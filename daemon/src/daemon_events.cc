#include "daemon_events.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "ibpulse/base/log_text.h"
#include "ibpulse/collector/sampler.h"
#include "ibpulse/converters/pipeline_stats.h"

namespace ibpulse::daemon {
namespace {

using collector::guid_string;

void log_changes(const collector::Topology& t, const collector::TopologyChanges& c) {
  size_t linked = 0;
  for (const auto& p : t.ports)
    linked += p.remote.has_value();
  spdlog::info("event=discovered nodes={} switches={} ports={} linked={} subnet_prefix={}",
               t.nodes.size(), t.switch_count(), t.ports.size(), linked,
               guid_string(t.subnet_prefix));
  if (c.nodes_added.size() == t.nodes.size()) return;  // the first discovery: all is new
  for (auto guid : c.nodes_added)
    spdlog::info("event=node_added node_guid={}", guid_string(guid));
  for (auto guid : c.nodes_removed)
    spdlog::warn("event=node_removed node_guid={}", guid_string(guid));
  const auto name = [&](collector::PortKey k) {
    const auto* n = t.find_node(k.node_guid);
    return n ? n->name : std::string("?");
  };
  for (auto k : c.links_down) {
    spdlog::warn("event=link_down node_guid={} port={} node=\"{}\"", guid_string(k.node_guid),
                 k.port, log_text(name(k)));
  }
  for (auto k : c.links_up) {
    spdlog::info("event=link_up node_guid={} port={} node=\"{}\"", guid_string(k.node_guid), k.port,
                 log_text(name(k)));
  }
  for (const auto& l : c.lid_changes) {
    spdlog::warn("event=lid_changed node_guid={} port={} lid_before={} lid_after={}",
                 guid_string(l.port.node_guid), l.port.port, l.before, l.after);
  }
}

void log_sampled(collector::PortKey port, const collector::SampleResult& r,
                 const collector::SampleRequest& request) {
  if (r.outcome != collector::SampleOutcome::kDone) {
    spdlog::warn("event=sample node_guid={} port={} outcome={} detail=\"{}\"",
                 guid_string(port.node_guid), port.port, collector::to_string(r.outcome),
                 log_text(r.detail));
    return;
  }
  std::string values;
  for (size_t i = 0; i < r.counters.size(); ++i) {
    values += fmt::format(" {}={}", collector::select_name(request.selects[i]), r.counters[i]);
  }
  spdlog::debug("event=sample node_guid={} port={} outcome=done tag=0x{:04x} interval={}{}",
                guid_string(port.node_guid), port.port, r.tag, r.interval, values);
}

void log_port_changed(const collector::Port& p, const collector::LinkState& before) {
  spdlog::log(p.active() ? spdlog::level::info : spdlog::level::warn,
              "event=port_state_changed node_guid={} port={} state_before={} state={} "
              "phys_state={} width_before={} width={} speed_before={} speed={}",
              guid_string(p.key.node_guid), p.key.port, collector::state_name(before.state),
              collector::state_name(p.link.state), collector::phys_state_name(p.link.phys_state),
              collector::width_name(before.width_active),
              collector::width_name(p.link.width_active), collector::speed_name(before),
              collector::speed_name(p.link));
}

void log_sweep(const collector::SweepSummary& s) {
  if (s.number == 1) {
    spdlog::info("event=ready ports={} stale={} sweep_seconds={:.3f}", s.ports, s.stale, s.seconds);
  } else if (s.stale > 0) {
    spdlog::warn("event=sweep sweep={} ports={} stale={} sweep_seconds={:.3f} lag_seconds={:.3f}",
                 s.number, s.ports, s.stale, s.seconds, s.lag_seconds);
  } else {
    spdlog::debug("event=sweep sweep={} ports={} stale=0 sweep_seconds={:.3f} lag_seconds={:.3f}",
                  s.number, s.ports, s.seconds, s.lag_seconds);
  }
}

}  // namespace

collector::PollerEvents poller_events(converters::ConvertLoop& converter,
                                      std::function<void()> on_sweep) {
  collector::PollerEvents events;
  events.discovered = [&converter](const collector::Topology& t,
                                   const collector::TopologyChanges& c) {
    log_changes(t, c);
    converter.set_topology(t);
  };
  events.warning = [](const std::string& text) { spdlog::warn("{}", text); };
  events.sampled = log_sampled;
  events.port_changed = [&converter](const collector::Port& p, const collector::LinkState& before) {
    converter.update_port(p);
    log_port_changed(p, before);
  };
  events.port_refreshed = [&converter](const collector::Port& p) { converter.update_port(p); };
  events.subnet_managers_read = [&converter](uint8_t subnet,
                                             std::vector<collector::SubnetManagerInfo> sms) {
    converter.update_subnet_managers(subnet, std::move(sms));
  };
  events.partitions_read = [&converter](std::vector<collector::PortPartitions> tables) {
    spdlog::debug("event=partitions_read ports={}", tables.size());
    converter.update_partitions(std::move(tables));
  };
  events.sweep_done = [on_sweep = std::move(on_sweep)](const collector::SweepSummary& s) {
    log_sweep(s);
    on_sweep();
  };
  return events;
}

void log_sample(const collector::RawSample& s) {
  const auto info = schema::find_attribute(s.attribute);
  spdlog::trace("event=sample_read node_guid={} port={} attribute={} failure={} fields={}",
                guid_string(s.port.node_guid), s.port.port, info ? info->name : "?",
                collector::to_string(s.failure), s.field_count);
}

void log_snmp_agent(exporters::snmp::SnmpAgent& agent,
                    const exporters::snmp::AgentOptions& options) {
  for (const auto& sink : agent.notification_stats()) {  // --snmp.trap-sink ones too
    spdlog::info("event=snmp_trap_sink address=\"{}\" type={}", log_text(sink.address),
                 exporters::snmp::to_string(sink.kind));
  }
  if (options.agentx.empty()) {
    spdlog::info("event=snmp_listening address=\"{}\" port={} contexts={}",
                 log_text(options.listen), agent.port(),
                 options.node_contexts ? "per-node" : "fabric-only");
  } else {
    spdlog::info("event=snmp_agentx socket=\"{}\" context={} node_contexts={}",
                 log_text(options.agentx), options.agentx_context, options.node_contexts);
  }
}

void log_stopped(const collector::PollerStats& st, const converters::ConverterStats& cs) {
  const converters::PipelineStatus status =
      converters::pipeline_status(st, cs, nullptr, converters::Clock::now());
  std::string line = "event=stopped";
  for (const converters::PipelineStat& stat : converters::pipeline_stats()) {
    if (stat.log_key.empty()) continue;
    if (stat.by_reason != nullptr) {
      for (const collector::MadFailure reason : collector::kMadFailureReasons) {
        fmt::format_to(std::back_inserter(line), " {}_{}={}", stat.log_key,
                       collector::to_string(reason), stat.by_reason(status, reason));
      }
    } else if (stat.count != nullptr) {
      fmt::format_to(std::back_inserter(line), " {}={}", stat.log_key, stat.count(status));
    } else {
      fmt::format_to(std::back_inserter(line), " {}={:.6f}", stat.log_key, stat.seconds(status));
    }
  }
  spdlog::info("{}", line);
}

collector::SmSubscriptionEvents sm_events(exporters::alerts::AlertLoop& alerts) {
  // Traps whose last Set failed (the subscription's thread only).
  auto failing = std::make_shared<std::set<uint16_t>>();
  collector::SmSubscriptionEvents e;
  e.notice = [&alerts](collector::SmNotice n) { alerts.post(std::move(n)); };
  e.round = [](uint16_t sm_lid, std::string_view why) {
    spdlog::info("event=sm_subscription sm_lid={} reason={}", sm_lid, why);
  };
  e.subscribed = [failing](uint16_t trap) {
    if (failing->erase(trap) != 0) spdlog::info("event=sm_subscribed trap={} note=recovered", trap);
  };
  e.failed = [failing](uint16_t trap, const std::string& why) {
    const bool first = failing->insert(trap).second;
    spdlog::log(first ? spdlog::level::warn : spdlog::level::debug,
                "event=sm_subscribe_failed trap={} error=\"{}\" note=\"sent again at the next "
                "sm.subscription-refresh\"",
                trap, log_text(why));
  };
  e.untranslatable = [](uint16_t from_lid, const std::string& why) {
    spdlog::info("event=sm_report_untranslatable from_lid={} reason=\"{}\"", from_lid,
                 log_text(why));
  };
  return e;
}

}  // namespace ibpulse::daemon
