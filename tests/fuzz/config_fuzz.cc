// The daemon's configuration: a YAML file and command-line flags, as `ibpulse run` reads them
// (add_config_flags through CLI11, daemon::build_config). The input is flags, one
// per line, then a line "---" and the YAML file. A config or an error, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "config_flags.h"
#include "ibpulse/daemon/config.h"

namespace {

// The YAML goes through a file, as it does in the daemon: one per fuzzing process.
const std::string& config_path() {
  static const std::string path = "/tmp/ibpulse-config-fuzz-" + std::to_string(getpid()) + ".yaml";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::cli;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find("\n---\n");
  const std::string flag_text = input.substr(0, split);
  const std::string yaml = split == std::string::npos ? "" : input.substr(split + 5);

  std::vector<std::string> args = {"ibpulse"};
  for (size_t at = 0; at < flag_text.size();) {
    const size_t nl = flag_text.find('\n', at);
    args.push_back(flag_text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  ibpulse::config::FlagValues flags;
  CLI::App app;
  add_config_flags(app, key_infos(ibpulse::daemon::config_keys()), flags, "");
  std::vector<const char*> argv;
  for (const auto& a : args)
    argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return 0;  // refused by the command line: `ibpulse run` prints CLI11's message
  }
  std::filesystem::path file;
  if (split != std::string::npos) {
    std::ofstream(config_path(), std::ios::trunc) << yaml;
    file = config_path();
  }
  const auto config = ibpulse::daemon::build_config(file, flags);
  if (!config && config.error().empty()) __builtin_trap();  // every refusal says why
  return 0;
}
