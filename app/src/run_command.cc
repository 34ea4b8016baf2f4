// `ibpulse run`: the long-running collector.
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "cli_support.h"
#include "commands.h"
#include "config_flags.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/subnets.h"
#include "ibpulse/daemon/config.h"
#include "ibpulse/daemon/daemon.h"
#include "ibpulse/exporters/alerts/alert_loop.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;

std::atomic<bool> g_reload{false};
void on_hup(int /*signo*/) {
  g_reload.store(true);
}

using daemon::DaemonConfig;

struct RunArgs {
  std::string config_file;
  config::FlagValues flags;
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

void report_rule_errors(const std::vector<std::string>& errors) {
  for (const auto& error : errors) {
    spdlog::error(
        "event=alert_rule_invalid error=\"{}\" note=\"this rule is skipped; the others apply\"",
        log_text(error));
  }
}

// SIGHUP: the configuration again, what can change without a restart.
void reload(daemon::Daemon& d, const DaemonConfig& running, const RunArgs& a) {
  auto fresh = daemon::build_config(a.config_file, a.flags);
  if (!fresh) {
    spdlog::error("event=reload_failed error=\"{}\" note=\"keeping the running configuration\"",
                  log_text(fresh.error()));
    return;
  }
  const auto& was = running.poller.shard;
  const auto& now = fresh->poller.shard;
  if (now.index != was.index || now.count != was.count || now.replicas != was.replicas) {
    spdlog::warn(
        "event=shard_unchanged note=\"shard.* take effect at a restart (docs/scale-out.md: "
        "a rolling change)\"");
  }
  if (fresh->local_ports != running.local_ports ||
      fresh->all_local_ports != running.all_local_ports) {
    spdlog::warn("event=local_ports_unchanged note=\"fabric.ports takes effect at a restart\"");
  }
  auto rules = exporters::alerts::parse_rules(fresh->alerts.rules, fresh->alerts.default_rules);
  report_rule_errors(rules.errors);
  exporters::alerts::log_rules(rules.rules);
  d.reload({fresh->poller, fresh->web.config_file, std::move(rules.rules)});
  spdlog::info("event=reloaded config=\"{}\"", log_text(a.config_file));
}

int run_daemon(const RunArgs& a) {
  auto config = daemon::build_config(a.config_file, a.flags);
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
  auto subnets = daemon::local_subnets(*config);
  if (!subnets) return fail(subnets.error());
  auto rules = exporters::alerts::parse_rules(config->alerts.rules, config->alerts.default_rules);
  report_rule_errors(rules.errors);
  exporters::alerts::log_rules(rules.rules);
  auto started = daemon::Daemon::start(
      daemon::daemon_options(*config, std::move(*subnets), std::move(rules.rules)));
  if (!started) return fail(started.error());
  daemon::Daemon& d = **started;
  auto last_stats = std::chrono::steady_clock::now();
  while (!stop.load() && !d.poller_ended() &&
         (a.exit_after_sweeps == 0 || d.sweeps() < a.exit_after_sweeps)) {
    std::this_thread::sleep_for(50ms);
    if (g_reload.exchange(false)) reload(d, *config, a);
    if (std::chrono::steady_clock::now() - last_stats > 60s) {
      last_stats = std::chrono::steady_clock::now();
      d.log_stats();
    }
  }
  if (Status result = d.stop(); !result) return fail(result.error());
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
  add_config_flags(*run, key_infos(daemon::config_keys()), a->flags,
                   "Configuration (also settable in the --config file)");
  run->callback([a, &action] { action = [a] { return run_daemon(*a); }; });
}

}  // namespace ibpulse::cli
