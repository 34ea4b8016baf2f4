#pragma once
// Starting, finding and stopping the processes of a simulated fabric. A process is known by
// its pid and its start time, so a pid that the kernel has handed to someone else is never
// signalled.
//
// Thread safety: functions only; no shared state.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::sim {

struct ProcessRef {
  pid_t pid = 0;
  uint64_t start_time = 0;  // field 22 of /proc/<pid>/stat (clock ticks since boot)
};

using EnvVars = std::vector<std::pair<std::string, std::string>>;

// Start time of a live, non-zombie process; nullopt when there is none.
std::optional<uint64_t> process_start_time(pid_t pid);
std::optional<ProcessRef> process_ref(pid_t pid);
bool is_running(const ProcessRef& process);

// SIGTERM, then SIGKILL after `grace`. Returns true when the process is gone. A process that
// leads its own session is signalled as a group, so helpers it started go with it.
bool terminate(const ProcessRef& process, std::chrono::milliseconds grace);

struct SpawnSpec {
  std::vector<std::string> argv;
  EnvVars env;  // added to (or replacing in) this process's environment
  std::filesystem::path stdin_path = "/dev/null";
  bool stdin_read_write = false;  // open stdin O_RDWR (keeps a fifo's write end open)
  std::filesystem::path stdout_path = "/dev/null";
  std::filesystem::path stderr_path = "/dev/null";
};

// Starts a daemon in its own session, re-parented to init (it never becomes our zombie).
// Fails with the exec error when the program cannot be run.
Result<ProcessRef> spawn_detached(const SpawnSpec& spec);

struct CommandOutput {
  int exit_code = 0;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Runs a command to completion with captured output; kills it after `timeout`.
Result<CommandOutput> run_command(const std::vector<std::string>& argv, const EnvVars& env,
                                  std::chrono::milliseconds timeout);

// Replaces this process with `argv` (searched in $PATH) and this environment plus `env`.
// Returns only when that fails.
Status replace_process(const std::vector<std::string>& argv, const EnvVars& env);

// The environment of this process with `env` applied, as execve wants it.
std::vector<std::string> merged_environment(const EnvVars& env);

// First match of `name` in $PATH, or nullopt.
std::optional<std::filesystem::path> find_program(std::string_view name);

// Path of the running executable.
std::filesystem::path self_executable();

}  // namespace ibpulse::sim
