#pragma once
// A command line by /bin/sh, outside any simulated fabric (tmux and chromium need no umad2sim,
// and tmux crashes under its preload): its exit code and its output, standard error included.
#include <string>

namespace ibpulse::testing {

struct ShellRun {
  int exit_code = -1;  // -1: it did not exit normally
  std::string out;
};

ShellRun shell(const std::string& command);

}  // namespace ibpulse::testing
