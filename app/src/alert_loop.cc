#include "alert_loop.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "ibpulse/base/log_text.h"
#include "ibpulse/base/thread_name.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;
using exporters::alerts::AlertEvent;
using exporters::alerts::EventKind;

std::string where(const AlertEvent& e) {
  return fmt::format("node_guid={} port={} node=\"{}\" if_index={}",
                     collector::guid_string(e.port.node_guid), e.port.port, log_text(e.node_name),
                     e.if_index);
}

}  // namespace

AlertLoop::AlertLoop(std::vector<exporters::alerts::Rule> rules,
                     exporters::alerts::EngineOptions options,
                     exporters::alerts::HealthOptions health,
                     const converters::SnapshotStore& snapshots,
                     exporters::alerts::HealthStore& healths)
    : engine_(std::move(rules), options),
      health_(std::move(health)),
      snapshots_(snapshots),
      healths_(healths) {}

void AlertLoop::report(const exporters::alerts::Decision& d) {
  const AlertEvent& e = d.event;
  const char* withheld = d.notify ? "" : " notified=false note=\"storm control\"";
  switch (e.kind) {
    case EventKind::kRaised:
      spdlog::log(e.renotify ? spdlog::level::info : spdlog::level::warn,
                  "event=alert_{} rule={} severity={} {} counter={} {}={:.3f} threshold={:.3f} "
                  "window_seconds={}{}",
                  e.renotify ? "renotified" : "raised", e.rule, to_string(e.severity), where(e),
                  e.counter, to_string(e.condition), e.value, e.threshold, e.window_seconds,
                  withheld);
      break;
    case EventKind::kCleared:
      spdlog::info(
          "event=alert_cleared rule={} severity={} {} counter={} last_{}={:.3f} threshold={:.3f}{}",
          e.rule, to_string(e.severity), where(e), e.counter, to_string(e.condition), e.value,
          e.threshold, withheld);
      break;
    case EventKind::kLinkDown:
    case EventKind::kLinkUp:  // the poller logs the state change itself
      spdlog::debug("event=notification kind={} {}{}", to_string(e.kind), where(e), withheld);
      break;
    case EventKind::kRateLimited:
      spdlog::warn(
          "event=notifications_rate_limited suppressed={} interval_seconds={} note=\"storm "
          "control (alerts.rate-limit): the log and /metrics still show every alert\"",
          e.suppressed, e.window_seconds);
      break;
  }
}

void AlertLoop::run(const std::atomic<bool>& stop) {
  name_this_thread("ibp-alerts");
  std::shared_ptr<const converters::FabricSnapshot> last;
  while (!stop.load()) {
    auto snapshot = snapshots_.load();
    if (!snapshot || snapshot == last) {
      std::this_thread::sleep_for(50ms);
      continue;
    }
    last = snapshot;
    {
      std::lock_guard lock(mutex_);
      if (reloaded_) engine_.replace_rules(std::move(*reloaded_));
      reloaded_.reset();
    }
    const auto health = health_.evaluate(*snapshot);
    healths_.publish(health);
    for (auto& d : engine_.evaluate(*snapshot, std::chrono::system_clock::now(), health.get())) {
      report(d);
      if (d.notify && notifier_) notifier_(std::move(d.event));
    }
    std::lock_guard lock(mutex_);
    status_.active = engine_.active();
    status_.engine = engine_.stats();
  }
}

void AlertLoop::reload(std::vector<exporters::alerts::Rule> rules) {
  std::lock_guard lock(mutex_);
  reloaded_ = std::move(rules);
}

AlertStatus AlertLoop::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

size_t AlertLoop::active_count() const {
  std::lock_guard lock(mutex_);
  return status_.active.size();
}

uint64_t AlertLoop::suppressed() const {
  std::lock_guard lock(mutex_);
  return status_.engine.suppressed;
}

void log_rules(const std::vector<exporters::alerts::Rule>& rules) {
  for (const auto& r : rules) {
    spdlog::debug("event=alert_rule rule={} counter={} severity={} origin=\"{}\"", r.name,
                  r.counter, to_string(r.severity), log_text(r.origin));
  }
  spdlog::info("event=alert_rules rules={}", rules.size());
}

}  // namespace ibpulse::cli
