// ibpulse: InfiniBand counter telemetry collector and exporter.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "cli_support.h"
#include "commands.h"

namespace {

constexpr const char* kDescription =
    "ibpulse polls the Performance Management Agent of every port of an InfiniBand fabric and "
    "exports exact 64-bit counters to Prometheus and SNMP.\n\n"
    "Try it without hardware: `ibpulse demo` brings up a simulated fabric (ibsim + opensm).";

}  // namespace

int main(int argc, char** argv) {
  using namespace ibpulse::cli;
  set_program_args(argc, argv);
  // Logs go to standard error: standard output carries only what a command was asked for.
  spdlog::set_default_logger(spdlog::stderr_color_mt("ibpulse"));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");

  CLI::App app(kDescription, "ibpulse");
  app.set_version_flag("--version", std::string("ibpulse ") + IBPULSE_VERSION);
  std::string log_level = "info";
  app.add_option("--log.level", log_level, "Log level: trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))
      ->capture_default_str();
  app.require_subcommand(1);

  Action action;
  CLI::App* sim = app.add_subcommand(
      "sim",
      "Simulated fabric: start and stop ibsim + opensm, run clients, inject traffic, "
      "errors and link flaps");
  sim->require_subcommand(1);
  add_sim_commands(*sim, action);
  add_sim_fault_commands(*sim, action);
  add_sim_traffic_command(*sim, action);
  add_demo_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "ibpulse: {} (see --help)\n", e.what());
    return kUsage;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  if (!action) return fail("nothing to do (see --help)");
  return action();
}
