#include "ibpulse/exporters/alerts/alert_loop.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "ibpulse/base/atomic_file.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/base/thread_name.h"
#include "ibpulse/converters/state_file.h"

namespace ibpulse::exporters::alerts {
namespace {

using namespace std::chrono_literals;

std::string where(const AlertEvent& e) {
  std::string text = fmt::format("node_guid={} port={} node=\"{}\" if_index={}",
                                 collector::guid_string(e.port.node_guid), e.port.port,
                                 log_text(e.node_name), e.if_index);
  if (e.remote) {  // a link's alert: its other end
    text += fmt::format(" remote_node_guid={} remote_port={}",
                        collector::guid_string(e.remote->node_guid), e.remote->port);
  }
  return text;
}

}  // namespace

AlertLoop::AlertLoop(std::vector<Rule> rules, EngineOptions options, HealthOptions health,
                     const converters::SnapshotStore& snapshots, HealthStore& healths,
                     std::filesystem::path health_file, std::chrono::milliseconds save_interval)
    : engine_(std::move(rules), options),
      health_(std::move(health)),
      snapshots_(snapshots),
      healths_(healths),
      health_file_(std::move(health_file)),
      save_interval_(save_interval) {}

void AlertLoop::load_health() {
  if (health_file_.empty()) return;
  auto file = converters::read_whole_file(health_file_);
  if (!file) {
    spdlog::warn("event=health_load_failed path=\"{}\" error=\"{}\"",
                 log_text(health_file_.string()), log_text(file.error()));
    return;
  }
  if (!file->found) return;
  const auto saved = decode_health(file->bytes);
  if (!saved) {
    spdlog::warn(
        "event=health_rejected path=\"{}\" reason=\"{}\" note=\"link health starts from the "
        "counters; the file is replaced at the next save\"",
        log_text(health_file_.string()), log_text(saved.error()));
    return;
  }
  const auto wall = std::chrono::system_clock::now();
  health_.restore(*saved, wall, converters::Clock::now());
  spdlog::info("event=health_loaded path=\"{}\" ports={} age_seconds={}",
               log_text(health_file_.string()), saved->ports.size(),
               std::chrono::duration_cast<std::chrono::seconds>(wall.time_since_epoch()).count() -
                   saved->saved_unix_seconds);
}

void AlertLoop::save_health() {
  const auto health = healths_.load();
  if (health_file_.empty() || !health) return;
  const auto unix_now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  if (auto s = write_file_atomically(health_file_, encode_health(*health, unix_now)); !s) {
    spdlog::warn("event=health_save_failed path=\"{}\" error=\"{}\"",
                 log_text(health_file_.string()), log_text(s.error()));
  }
}

void AlertLoop::report(const Decision& d) {
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
    case EventKind::kSma: {
      std::string detail;
      if (e.notice) {  // forwarded by the subnet manager
        detail = fmt::format(" source=sm issuer_lid={}", e.notice->issuer_lid);
      } else if (e.sma_trap == 129 || e.sma_trap == 130) {
        detail = fmt::format(" increase={:.0f} threshold={:.0f} window_seconds={}", e.value,
                             e.threshold, e.window_seconds);
      }
      spdlog::info("event=sma_trap trap={} {} lid={}{}{}", e.sma_trap, where(e), e.lid, detail,
                   withheld);
      break;
    }
    case EventKind::kSmMaster:
      spdlog::log(e.first_sight ? spdlog::level::info : spdlog::level::warn,
                  "event={} subnet_prefix={}{} sm_guid={} previous_sm_guid={} lid={} priority={} "
                  "state={} node_guid={} port={} node=\"{}\"{}",
                  e.first_sight ? "sm_master_seen" : "sm_master_changed",
                  collector::guid_string(e.subnet_prefix),
                  e.subnet.empty() ? "" : fmt::format(" subnet=\"{}\"", log_text(e.subnet)),
                  collector::guid_string(e.sm_guid), collector::guid_string(e.previous_sm_guid),
                  e.lid, e.sm_priority, e.sm_state, collector::guid_string(e.port.node_guid),
                  e.port.port, log_text(e.node_name), e.first_sight ? "" : withheld);
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
  load_health();
  std::shared_ptr<const converters::FabricSnapshot> last;
  auto last_save = converters::Clock::now();
  while (!stop.load()) {
    if (!health_file_.empty() && converters::Clock::now() - last_save >= save_interval_) {
      save_health();
      last_save = converters::Clock::now();
    }
    // Woken by the publish; the timeout bounds how late a stop or a posted Notice is seen.
    auto snapshot = snapshots_.wait_for_newer(last, 50ms);
    if (last && last->topology) forward_notices();  // named from a topology: wait for one
    if (!snapshot) continue;
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
  save_health();
}

void AlertLoop::forward_notices() {
  std::vector<collector::SmNotice> notices;
  {
    std::lock_guard lock(mutex_);
    notices.swap(notices_);
  }
  if (notices.empty()) return;
  for (auto& d : engine_.forward(std::move(notices), converters::Clock::now(),
                                 std::chrono::system_clock::now())) {
    report(d);
    if (d.notify && notifier_) notifier_(std::move(d.event));
  }
  std::lock_guard lock(mutex_);
  status_.engine = engine_.stats();
}

void AlertLoop::post(collector::SmNotice notice) {
  std::lock_guard lock(mutex_);
  if (notices_.size() >= kMaxWaitingNotices) {  // no topology yet, for long: the oldest go
    if (notices_dropped_++ == 0) {
      spdlog::warn(
          "event=sm_notices_dropped note=\"no discovery yet: the subnet manager's oldest "
          "Notices are dropped beyond {}\"",
          kMaxWaitingNotices);
    }
    notices_.erase(notices_.begin());
  }
  notices_.push_back(std::move(notice));
}

void AlertLoop::reload(std::vector<Rule> rules) {
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

void log_rules(const std::vector<Rule>& rules) {
  for (const auto& r : rules) {
    spdlog::debug("event=alert_rule rule={} counter={} severity={} origin=\"{}\"", r.name,
                  r.counter, to_string(r.severity), log_text(r.origin));
  }
  spdlog::info("event=alert_rules rules={}", rules.size());
}

}  // namespace ibpulse::exporters::alerts
