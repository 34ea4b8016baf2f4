#include "ibpulse/daemon/daemon.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "daemon_events.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/exporters/alerts/alert_loop.h"
#include "ibpulse/exporters/prometheus/self_metrics.h"
#include "ibpulse/exporters/prometheus/web_endpoint.h"
#include "ibpulse/exporters/snmp/agent.h"

namespace ibpulse::daemon {

// The threads and what they run, in the order they start (and are declared: destroyed last
// first). Each thread has its own stop flag: stop() ends them in a set order.
struct Daemon::Parts {
  std::vector<std::unique_ptr<collector::SampleRing>> rings;  // one per poller: SPSC
  std::vector<collector::SampleRing*> ring_ptrs;
  std::unique_ptr<collector::ClearRings> clears;
  std::unique_ptr<converters::ConvertLoop> converter;
  std::atomic<bool> stop_converter{false};
  std::thread convert_thread;
  std::unique_ptr<collector::SubnetSet> poller;
  std::unique_ptr<exporters::alerts::AlertLoop> alerts;
  // Set once the SNMP agent runs: scrapes may come before.
  std::atomic<exporters::snmp::SnmpAgent*> agent{nullptr};
  std::unique_ptr<exporters::remote_write::RemoteWriter> remote_write;
  // What other threads read: set once remote_write is, since the writer's own thread asks for
  // the daemon's status (status_for_metrics) before start() has returned it.
  std::atomic<const exporters::remote_write::RemoteWriter*> remote_write_view{nullptr};
  std::unique_ptr<exporters::prometheus::WebEndpoint> web;
  std::unique_ptr<exporters::snmp::SnmpAgent> snmp;
  std::atomic<bool> stop_alerts{false};
  std::thread alert_thread;
  std::unique_ptr<collector::SmSubscription> sm;  // null: no subscription
  std::atomic<bool> stop_sm{false};
  std::thread sm_thread;
  std::atomic<bool> stop_poller{false};
  std::thread io_thread;
  Status poller_result = Ok{};

  void stop_converter_thread() {
    if (!convert_thread.joinable()) return;
    stop_converter.store(true);
    convert_thread.join();
  }
};

Daemon::Daemon(DaemonOptions options)
    : options_(std::move(options)), parts_(std::make_unique<Parts>()) {}

Daemon::~Daemon() {
  if (!stopped_) (void)stop();
}

Result<std::unique_ptr<Daemon>> Daemon::start(DaemonOptions options) {
  std::unique_ptr<Daemon> d(new Daemon(std::move(options)));
  Parts& p = *d->parts_;
  const DaemonOptions& o = d->options_;
  size_t local_ports = 0;
  for (const auto& subnet : o.subnets)
    local_ports += std::max<size_t>(1, subnet.size());
  for (size_t i = 0; i < local_ports; ++i) {
    p.rings.push_back(std::make_unique<collector::SampleRing>(o.ring_size));
    p.ring_ptrs.push_back(p.rings.back().get());
  }
  p.clears = std::make_unique<collector::ClearRings>(local_ports, 4096);  // one per poller
  p.converter = std::make_unique<converters::ConvertLoop>(o.convert, p.ring_ptrs, *p.clears,
                                                          d->snapshots_, log_sample);
  p.convert_thread = std::thread([&p] { p.converter->run(p.stop_converter); });
  converters::ConvertLoop& converter = *p.converter;
  std::atomic<uint64_t>& sweeps = d->sweeps_;
  p.poller = std::make_unique<collector::SubnetSet>(
      o.poller, o.subnets, o.subnet_names, p.ring_ptrs,
      poller_events(converter, [&sweeps] { sweeps.fetch_add(1); }), p.clears->rings(), o.backend);
  p.alerts = std::make_unique<exporters::alerts::AlertLoop>(o.rules, o.alerts, o.health,
                                                            d->snapshots_, d->healths_,
                                                            o.health_file, o.health_save_interval);
  if (Status started = d->start_endpoints(); !started) {
    if (p.remote_write) p.remote_write->stop();  // it may have started before the failure
    p.stop_converter_thread();
    d->stopped_ = true;
    return Error{started.error()};
  }
  p.alert_thread = std::thread([&p] { p.alerts->run(p.stop_alerts); });
  d->start_sm_subscription();
  Daemon* self = d.get();
  p.io_thread = std::thread([self, &p] {
    p.poller_result = p.poller->run(p.stop_poller);
    if (!p.stop_poller.load()) self->poller_ended_.store(true);  // not asked to: an error
  });
  return d;
}

void Daemon::status_for_metrics(exporters::prometheus::DaemonStatus& status) const {
  const Parts& p = *parts_;
  if (const auto* writer = p.remote_write_view.load()) status.remote_write = writer->status();
  auto now = p.alerts->status();
  status.active_alerts = std::move(now.active);
  status.alerts = now.engine;
  if (const auto* running = p.agent.load()) {
    const auto totals = running->notification_totals();
    status.notifications_sent = totals.sent;
    status.notifications_dropped = totals.dropped;
    status.sma_notifications = running->sma_notification_counts();
  }
  if (p.sm) status.sm_subscription = p.sm->stats();
}

// Without it the daemon still runs: IB-SMA-MIB's notifications then come only from what the
// pollers see.
void Daemon::start_sm_subscription() {
  Parts& p = *parts_;
  const collector::SmSubscriptionOptions& o = options_.sm_subscription;
  if (o.traps.empty() || options_.backend.open_engine) return;
  auto sm = collector::SmSubscription::open(o);
  if (!sm) {
    spdlog::warn(
        "event=sm_subscription_unavailable error=\"{}\" note=\"IB-SMA-MIB notifications come "
        "only from what ibpulse reads itself\"",
        log_text(sm.error()));
    return;
  }
  p.sm = std::move(*sm);
  p.sm_thread = std::thread([&p, events = sm_events(*p.alerts)] { p.sm->run(p.stop_sm, events); });
}

Status Daemon::start_endpoints() {
  Parts& p = *parts_;
  const DaemonOptions& o = options_;
  const auto alert_status = [this](exporters::prometheus::DaemonStatus& status) {
    status_for_metrics(status);
  };
  // The daemon's own metrics go out with every snapshot too (ibpulse_shard_info shows which
  // collectors are alive where nothing scrapes them), from a registry of the writer's own.
  p.remote_write = exporters::remote_write::RemoteWriter::start(
      o.remote_write, o.web.collect, snapshots_,
      [this, alert_status,
       self = std::make_shared<exporters::prometheus::SelfMetrics>(IBPULSE_VERSION)](
          std::string& out) {
        exporters::prometheus::DaemonStatus status;
        static_cast<converters::PipelineStatus&>(status) = converters::pipeline_status(
            poller_stats(), converter_stats(), nullptr, converters::Clock::now());
        alert_status(status);
        self->update(status);
        self->append(out);
      },
      &healths_);
  p.remote_write_view.store(p.remote_write.get());
  auto web = exporters::prometheus::WebEndpoint::start(
      o.web, {&snapshots_, &healths_, [this] { return poller_stats(); },
              [this] { return converter_stats(); }, alert_status});
  if (!web) {
    const bool file = web.error().starts_with("web config ");
    return Err("--{}: {}", file ? "web.config-file" : "web.listen-address", web.error());
  }
  p.web = std::move(*web);
  if (p.web) {
    spdlog::info("event=web_listening address=\"{}\" port={} path=/metrics web_config=\"{}\"",
                 log_text(o.web.listen_address), p.web->port(), log_text(o.web.config_file));
  }
  auto snmp = exporters::snmp::start_snmp_agent(o.snmp, &snapshots_, &healths_, [this] {
    exporters::snmp::CollectorStatus status;
    static_cast<converters::PipelineStatus&>(status) = converters::pipeline_status(
        poller_stats(), converter_stats(), snapshots_.load().get(), converters::Clock::now());
    status.active_alerts = parts_->alerts->active_count();
    status.notifications_suppressed = parts_->alerts->suppressed();
    return status;
  });
  if (!snmp) return Err("snmp: {}", snmp.error());
  p.snmp = std::move(*snmp);
  if (p.snmp) {
    p.agent.store(p.snmp.get());
    p.alerts->set_notifier(
        [a = p.snmp.get()](exporters::alerts::AlertEvent e) { a->notify(std::move(e)); });
    log_snmp_agent(*p.snmp, o.snmp.agent);
  }
  return Ok{};
}

uint16_t Daemon::web_port() const {
  return parts_->web ? parts_->web->port() : 0;
}

uint16_t Daemon::snmp_port() const {
  return parts_->snmp ? parts_->snmp->port() : 0;
}

collector::PollerStats Daemon::poller_stats() const {
  return parts_->poller->stats();
}

converters::ConverterStats Daemon::converter_stats() const {
  return parts_->converter->stats();
}

void Daemon::reload(DaemonReload reload) {
  Parts& p = *parts_;
  p.poller->reconfigure(reload.poller);
  if (p.web) {
    if (Status reloaded = p.web->reload_web_config(reload.web_config_file); !reloaded) {
      spdlog::error(
          "event=web_config_reload_failed error=\"{}\" note=\"keeping the running TLS and "
          "users\"",
          log_text(reloaded.error()));
    }
  }
  p.alerts->reload(std::move(reload.rules));
}

void Daemon::log_stats() const {
  const auto st = poller_stats();
  spdlog::info(
      "event=stats sweeps={} samples={} ring_drops={} mad_sent={} mad_timeouts={} mad_retried={}",
      st.sweeps, st.samples, st.ring_drops, st.mad.sent, st.mad.attempt_timeouts, st.mad.retried);
}

Status Daemon::stop() {
  if (stopped_) return Ok{};
  stopped_ = true;
  Parts& p = *parts_;
  // A scrape being written finishes before the server stops: in parallel with the poller and
  // converter stopping, which the endpoint's callbacks read (alive until the joins below).
  std::thread web_stop([&p] { p.web.reset(); });
  p.stop_poller.store(true);
  p.stop_sm.store(true);
  if (p.io_thread.joinable()) p.io_thread.join();
  if (p.sm_thread.joinable()) p.sm_thread.join();
  p.stop_converter_thread();
  p.stop_alerts.store(true);
  if (p.alert_thread.joinable()) p.alert_thread.join();
  if (p.remote_write) p.remote_write->stop();  // its status stays readable for a last scrape
  p.converter->log_totals();
  log_stopped(poller_stats(), converter_stats());
  web_stop.join();  // before the agent goes: a last scrape may read its statistics
  p.agent.store(nullptr);
  p.snmp.reset();
  return p.poller_result;
}

}  // namespace ibpulse::daemon
