// `ibpulse run`: the long-running collector.
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "alert_loop.h"
#include "cli_support.h"
#include "commands.h"
#include "convert_loop.h"
#include "daemon_config.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/subnets.h"
#include "ibpulse/exporters/remote_write/writer.h"
#include "local_subnets.h"
#include "snmp_endpoint.h"
#include "web_endpoint.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;
using collector::guid_string;

std::atomic<bool> g_reload{false};
void on_hup(int /*signo*/) {
  g_reload.store(true);
}

struct RunArgs {
  std::string config_file;
  ConfigValues flags;
  uint64_t exit_after_sweeps = 0;
};

void cap_for_simulator(DaemonConfig& config) {
  const unsigned cap =
      collector::capped_window(config.poller.mad.window, collector::current_mad_environment());
  if (config.poller.mad.window > cap) {
    spdlog::info("event=mad_window_capped window={} cap={} reason=umad2sim",
                 config.poller.mad.window, cap);
    config.poller.mad.window = cap;
  }
}

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

void log_sample(const collector::RawSample& s) {
  const auto info = schema::find_attribute(s.attribute);
  spdlog::trace("event=sample_read node_guid={} port={} attribute={} failure={} fields={}",
                guid_string(s.port.node_guid), s.port.port, info ? info->name : "?",
                collector::to_string(s.failure), s.field_count);
}

void report_rule_errors(const std::vector<std::string>& errors) {
  for (const auto& error : errors) {
    spdlog::error(
        "event=alert_rule_invalid error=\"{}\" note=\"this rule is skipped; the others apply\"",
        log_text(error));
  }
}

int run_daemon(const RunArgs& a) {
  auto config = build_config(a.config_file, a.flags);
  if (!config) return fail(config.error());
  cap_for_simulator(*config);
  const auto& stop = install_stop_signals();
  struct sigaction sa {};
  sa.sa_handler = on_hup;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGHUP, &sa, nullptr);

  if (const auto& shard = config->poller.shard; shard.sharded()) {
    spdlog::info("event=shard index={} count={} replicas={}", shard.index, shard.count,
                 shard.replicas);
  }
  auto subnets = choose_local_subnets(*config);
  if (!subnets) return fail(subnets.error());
  auto rules = exporters::alerts::parse_rules(config->alert_rules, config->default_alert_rules);
  report_rule_errors(rules.errors);
  log_rules(rules.rules);

  // One ring per poller: an SPSC ring has one producer.
  std::vector<std::unique_ptr<collector::SampleRing>> rings;
  std::vector<collector::SampleRing*> ring_ptrs;
  for (size_t i = 0; i < subnets->port_count(); ++i) {
    rings.push_back(std::make_unique<collector::SampleRing>(config->ring_size));
    ring_ptrs.push_back(rings.back().get());
  }
  std::atomic<bool> stop_all{false};
  collector::ClearRings clears(subnets->port_count(), 4096);  // one per poller
  converters::SnapshotStore snapshots;
  ConvertLoop converter(*config, ring_ptrs, clears, snapshots, log_sample);
  std::atomic<bool> stop_converter{false};
  std::thread convert_thread([&] { converter.run(stop_converter); });

  std::atomic<uint64_t> sweeps{0};
  collector::PollerEvents events;
  events.discovered = [&](const collector::Topology& t, const collector::TopologyChanges& c) {
    log_changes(t, c);
    converter.set_topology(t);
  };
  events.warning = [](const std::string& text) { spdlog::warn("{}", text); };
  events.sampled = [](collector::PortKey port, const collector::SampleResult& r,
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
  };
  events.port_changed = [&](const collector::Port& p, const collector::LinkState& before) {
    converter.update_port(p);
    spdlog::log(p.active() ? spdlog::level::info : spdlog::level::warn,
                "event=port_state_changed node_guid={} port={} state_before={} state={} "
                "phys_state={} width_before={} width={} speed_before={} speed={}",
                guid_string(p.key.node_guid), p.key.port, collector::state_name(before.state),
                collector::state_name(p.link.state), collector::phys_state_name(p.link.phys_state),
                collector::width_name(before.width_active),
                collector::width_name(p.link.width_active), collector::speed_name(before),
                collector::speed_name(p.link));
  };
  events.sweep_done = [&](const collector::SweepSummary& s) {
    if (s.number == 1) {
      spdlog::info("event=ready ports={} stale={} sweep_seconds={:.3f}", s.ports, s.stale,
                   s.seconds);
    } else if (s.stale > 0) {
      spdlog::warn("event=sweep sweep={} ports={} stale={} sweep_seconds={:.3f} lag_seconds={:.3f}",
                   s.number, s.ports, s.stale, s.seconds, s.lag_seconds);
    } else {
      spdlog::debug("event=sweep sweep={} ports={} stale=0 sweep_seconds={:.3f} lag_seconds={:.3f}",
                    s.number, s.ports, s.seconds, s.lag_seconds);
    }
    sweeps.fetch_add(1);
  };
  collector::SubnetSet poller(config->poller, std::move(subnets->ports), std::move(subnets->names),
                              ring_ptrs, events, clears.rings());
  exporters::alerts::HealthStore healths;
  // Link health is kept across restarts beside the counters' state (docs/health.md).
  const std::filesystem::path health_file =
      config->state_save_interval.count() == 0
          ? std::filesystem::path()
          : (config->state_dir.empty() ? default_state_dir()
                                       : std::filesystem::path(config->state_dir)) /
                "health.json";
  AlertLoop alerts(std::move(rules.rules), config->alerts, config->health, snapshots, healths,
                   health_file, config->state_save_interval);
  // Set once the SNMP agent runs: scrapes may come before.
  std::atomic<exporters::snmp::SnmpAgent*> agent{nullptr};
  std::unique_ptr<exporters::remote_write::RemoteWriter> remote_write;
  const auto alert_status = [&alerts, &agent,
                             &remote_write](exporters::prometheus::DaemonStatus& status) {
    if (remote_write) status.remote_write = remote_write->status();
    auto now = alerts.status();
    status.active_alerts = std::move(now.active);
    status.alerts = now.engine;
    if (const auto* running = agent.load()) {
      const auto totals = running->notification_totals();
      status.notifications_sent = totals.sent;
      status.notifications_dropped = totals.dropped;
    }
  };
  // The daemon's own metrics go out with every snapshot too (ibpulse_shard_info shows which
  // collectors are alive where nothing scrapes them), from a registry of the writer's own.
  remote_write = exporters::remote_write::RemoteWriter::start(
      config->remote_write, config->collect, snapshots,
      [&, self = std::make_shared<exporters::prometheus::SelfMetrics>(IBPULSE_VERSION)](
          std::string& out) {
        exporters::prometheus::DaemonStatus status;
        status.poller = poller.stats();
        status.converter = converter.stats();
        alert_status(status);
        self->update(status);
        self->append(out);
      },
      &healths);
  auto web =
      WebEndpoint::start(config->web_listen_address, config->web_config_file, config->collect,
                         {&snapshots, &healths, [&poller] { return poller.stats(); },
                          [&converter] { return converter.stats(); }, alert_status});
  const auto abort_start = [&](const std::string& message) {
    stop_converter.store(true);
    convert_thread.join();
    return fail(message);
  };
  if (!web) {
    const bool file = web.error().starts_with("web config ");
    return abort_start(
        fmt::format("--{}: {}", file ? "web.config-file" : "web.listen-address", web.error()));
  }
  if (*web) {
    spdlog::info("event=web_listening address=\"{}\" port={} path=/metrics web_config=\"{}\"",
                 log_text(config->web_listen_address), (*web)->port(),
                 log_text(config->web_config_file));
  }
  auto snmp = start_snmp_agent(*config, &snapshots, &healths, [&] {
    auto status = collector_status(poller.stats(), converter.stats(), snapshots.load());
    status.active_alerts = alerts.active_count();
    status.notifications_suppressed = alerts.suppressed();
    return status;
  });
  if (!snmp) return abort_start(fmt::format("snmp: {}", snmp.error()));
  if (*snmp) {
    agent.store(snmp->get());
    alerts.set_notifier(
        [a = snmp->get()](exporters::alerts::AlertEvent e) { a->notify(std::move(e)); });
    for (const auto& sink : (*snmp)->notification_stats()) {  // --snmp.trap-sink ones too
      spdlog::info("event=snmp_trap_sink address=\"{}\" type={}", log_text(sink.address),
                   exporters::snmp::to_string(sink.kind));
    }
    if (config->snmp.agentx.empty()) {
      spdlog::info("event=snmp_listening address=\"{}\" port={} contexts={}",
                   log_text(config->snmp.listen), (*snmp)->port(),
                   config->snmp.node_contexts ? "per-node" : "fabric-only");
    } else {
      spdlog::info("event=snmp_agentx socket=\"{}\" context={} node_contexts={}",
                   log_text(config->snmp.agentx), config->snmp.agentx_context,
                   config->snmp.node_contexts);
    }
  }
  std::atomic<bool> stop_alerts{false};
  std::thread alert_thread([&] { alerts.run(stop_alerts); });
  std::atomic<bool> stop_poller{false};
  Status result = Ok{};
  std::thread io([&] {
    result = poller.run(stop_poller);
    stop_all.store(true);
  });

  auto last_stats = std::chrono::steady_clock::now();
  while (!stop.load() && !stop_all.load() &&
         (a.exit_after_sweeps == 0 || sweeps.load() < a.exit_after_sweeps)) {
    std::this_thread::sleep_for(50ms);
    if (g_reload.exchange(false)) {
      auto fresh = build_config(a.config_file, a.flags);
      if (!fresh) {
        spdlog::error("event=reload_failed error=\"{}\" note=\"keeping the running configuration\"",
                      log_text(fresh.error()));
      } else {
        const auto& was = config->poller.shard;
        const auto& now = fresh->poller.shard;
        if (now.index != was.index || now.count != was.count || now.replicas != was.replicas) {
          spdlog::warn(
              "event=shard_unchanged note=\"shard.* take effect at a restart (docs/scale-out.md: "
              "a rolling change)\"");
        }
        if (fresh->local_ports != config->local_ports ||
            fresh->all_local_ports != config->all_local_ports) {
          spdlog::warn(
              "event=local_ports_unchanged note=\"fabric.ports takes effect at a restart\"");
        }
        poller.reconfigure(fresh->poller);
        if (*web) {
          if (Status reloaded = (*web)->reload_web_config(fresh->web_config_file); !reloaded) {
            spdlog::error(
                "event=web_config_reload_failed error=\"{}\" note=\"keeping the running TLS "
                "and users\"",
                log_text(reloaded.error()));
          }
        }
        auto reloaded =
            exporters::alerts::parse_rules(fresh->alert_rules, fresh->default_alert_rules);
        report_rule_errors(reloaded.errors);
        log_rules(reloaded.rules);
        alerts.reload(std::move(reloaded.rules));
        spdlog::info("event=reloaded config=\"{}\"", log_text(a.config_file));
      }
    }
    if (std::chrono::steady_clock::now() - last_stats > 60s) {
      last_stats = std::chrono::steady_clock::now();
      const auto st = poller.stats();
      spdlog::info(
          "event=stats sweeps={} samples={} ring_drops={} mad_sent={} mad_timeouts={} "
          "mad_retried={}",
          st.sweeps, st.samples, st.ring_drops, st.mad.sent, st.mad.attempt_timeouts,
          st.mad.retried);
    }
  }
  // A scrape being written finishes before the server stops: in parallel with the poller and
  // converter stopping, which the endpoint's callbacks read (alive until the join below).
  std::thread web_stop([&web] { web->reset(); });
  stop_poller.store(true);
  io.join();
  stop_all.store(true);
  stop_converter.store(true);
  convert_thread.join();
  stop_alerts.store(true);
  alert_thread.join();
  if (remote_write) remote_write->stop();  // its status stays readable for a last scrape
  converter.log_totals();
  const auto st = poller.stats();
  const auto cs = converter.stats();
  std::string failed;  // failed_timeout=... for every reason a MAD can fail for
  for (const collector::MadFailure reason : collector::kMadFailureReasons)
    failed += fmt::format(" failed_{}={}", collector::to_string(reason), st.mad.failed_for(reason));
  spdlog::info(
      "event=stopped sweeps={} samples={} converted={} ring_drops={} late_reads={} mad_sent={} "
      "mad_answered={} mad_timeouts={} mad_late_replies={} mad_unreachable={} mad_retried={}{} "
      "port_info_reads={} port_info_failures={} port_changes={} clears_sent={} "
      "own_clears={} own_clears_failed={} foreign_clears={} lossy_intervals={} source_switches={} "
      "readings_held={} clear_window_seconds={:.6f} clear_window_lost_max={}",
      st.sweeps, st.samples, cs.samples, st.ring_drops, st.late_reads, st.mad.sent, st.mad.answered,
      st.mad.attempt_timeouts, st.mad.stale_replies, st.mad.attempt_unreachable, st.mad.retried,
      failed, st.port_info_reads, st.port_info_failures, st.port_changes, st.clears_sent,
      cs.own_clears, cs.own_clears_failed, cs.foreign_clears, cs.lossy_intervals,
      cs.source_switches, cs.readings_held, cs.clear_window_seconds, cs.clear_window_lost_max);
  web_stop.join();  // before the agent goes: a last scrape may read its statistics
  agent.store(nullptr);
  snmp->reset();
  if (!result) return fail(result.error());
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto* run = app.add_subcommand(
      "run",
      "Run the collector: discover the fabric, poll every port's PMA on schedule and keep "
      "exact counters. Every configuration key can be given in the YAML --config file or "
      "as a flag named by its dotted path; flags win. SIGHUP reloads, SIGTERM stops.");
  auto a = std::make_shared<RunArgs>();
  run->add_option("--config", a->config_file, "YAML configuration file")->check(CLI::ExistingFile);
  run->add_option("--exit-after-sweeps", a->exit_after_sweeps,
                  "Stop after this many full sweeps (tests, benchmarks)");
  add_config_flags(*run, a->flags);
  run->callback([a, &action] { action = [a] { return run_daemon(*a); }; });
}

}  // namespace ibpulse::cli
