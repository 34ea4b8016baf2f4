#pragma once
// Subcommand registration. Each front end adds its subcommands to the parser and sets the
// action to run once parsing succeeded.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "cli_support.h"

namespace ibpulse::cli {

using Action = std::function<int()>;

// Adds --name (required unless `name_optional`) and --root to a subcommand.
void add_fabric_options(CLI::App& sub, FabricOptions& options, bool name_optional = false);

void add_sim_commands(CLI::App& sim, Action& action);  // adds `up` first (add_sim_up_command)
void add_sim_up_command(CLI::App& sim, Action& action);
void add_sim_fault_commands(CLI::App& sim, Action& action);
void add_sim_traffic_command(CLI::App& sim, Action& action);
void add_demo_command(CLI::App& app, Action& action);
void add_discover_command(CLI::App& app, Action& action);
void add_query_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_sample_command(CLI::App& app, Action& action);
void add_shard_of_command(CLI::App& app, Action& action);
void add_top_command(CLI::App& app, Action& action);

}  // namespace ibpulse::cli
