// ibpulse: InfiniBand counter telemetry collector and exporter.
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "cli_support.h"
#include "commands.h"

namespace {

constexpr const char* kDescription =
    "ibpulse polls the Performance Management Agent of every port of an InfiniBand fabric and "
    "exports exact 64-bit counters to Prometheus and SNMP.\n\n"
    "Try it without hardware: `ibpulse demo` brings up a simulated fabric (ibsim + opensm).";

// CLI11 says only "A subcommand is required" when a command name is misspelt: name the word
// it did not know and the commands it knows.
std::string explain_missing_subcommand(CLI::App& app, int argc, char** argv) {
  CLI::App* deepest = &app;
  for (bool descended = true; descended;) {
    descended = false;
    for (CLI::App* sub : deepest->get_subcommands()) {
      deepest = sub;
      descended = true;
      break;
    }
  }
  std::vector<std::string> known;
  for (const CLI::App* sub : deepest->get_subcommands({})) {
    if (!sub->get_group().empty()) known.push_back(sub->get_name());
  }
  const std::string path = deepest == &app ? "ibpulse" : "ibpulse " + deepest->get_name();
  int first = 1;
  for (int i = 1; deepest != &app && i < argc; ++i) {
    if (deepest->get_name() == argv[i]) first = i + 1;
  }
  for (int i = first; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) {
      // Skip an option's value: `--log.level debug` is not a command.
      const CLI::Option* option =
          word.find('=') == std::string::npos ? deepest->get_option_no_throw(word) : nullptr;
      if (option == nullptr && deepest != &app && word.find('=') == std::string::npos) {
        option = app.get_option_no_throw(word);
      }
      if (option != nullptr && option->get_expected_min() > 0) ++i;
      continue;
    }
    if (std::find(known.begin(), known.end(), word) == known.end()) {
      return fmt::format("unknown command '{}' for '{}'; commands: {}", word, path,
                         fmt::join(known, ", "));
    }
  }
  return fmt::format("'{}' needs a command: {}", path, fmt::join(known, ", "));
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): escaping is a bug; std::terminate reports it
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
  app.fallthrough();  // --log.level may follow the subcommand too

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
  add_discover_command(app, action);
  add_query_command(app, action);
  add_run_command(app, action);
  add_sample_command(app, action);
  add_shard_of_command(app, action);
  add_top_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    if (std::string_view(e.what()).find("subcommand") == std::string_view::npos) {
      fmt::print(stderr, "ibpulse: {} (see --help)\n", e.what());
    } else {
      fmt::print(stderr, "ibpulse: {} (see --help)\n", explain_missing_subcommand(app, argc, argv));
    }
    return kUsage;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "ibpulse: {} (see --help)\n", e.what());
    return kUsage;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  if (!action) return fail("nothing to do (see --help)");
  return action();
}
