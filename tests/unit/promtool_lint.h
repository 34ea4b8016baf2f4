#pragma once
// `promtool check metrics` on a text exposition, for the exporter's unit tests.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace ibpulse::testing {

struct LintResult {
  int status = -1;     // promtool's exit status as pclose() gives it (0: clean)
  std::string output;  // its complaints
};

inline LintResult promtool_lint(const std::string& text) {
  static int serial = 0;
  const auto path =
      std::filesystem::temp_directory_path() /
      ("ibpulse-lint-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".prom");
  std::ofstream(path) << text;
  LintResult result;
  FILE* pipe = ::popen(("promtool check metrics < " + path.string() + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe))
    result.output += buf;
  result.status = ::pclose(pipe);
  std::filesystem::remove(path);
  return result;
}

}  // namespace ibpulse::testing
