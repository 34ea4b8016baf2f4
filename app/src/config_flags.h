#pragma once
// Configuration keys as command-line flags, one vocabulary on every command: `--<dotted path>`
// per key (base/config_keys.h), the same names on `run` and on discover, query and sample
// (`--fabric.ca`, `--mad.timeout 200ms`). The spellings those commands took before are still
// accepted, hidden from --help, with one deprecation note each.
//
// Thread safety: call while building the command line, on one thread.

#include <CLI/CLI.hpp>
#include <set>
#include <string>
#include <vector>

#include "ibpulse/base/config_keys.h"
#include "ibpulse/collector/poller.h"

namespace ibpulse::cli {

// `only` empty: every key.
template <typename T>
std::vector<config::KeyInfo> key_infos(const config::Keys<T>& keys,
                                       const std::set<std::string>& only = {}) {
  std::vector<config::KeyInfo> out;
  for (const auto& k : keys) {
    if (only.empty() || only.contains(k.info.name)) out.push_back(k.info);
  }
  return out;
}

// One `--<key>` flag per key, in the group `group`; values land in `flags`.
void add_config_flags(CLI::App& app, const std::vector<config::KeyInfo>& keys,
                      config::FlagValues& flags, const std::string& group);

// Where the fabric is and how discovery reads it; what MADs do (mad.*).
inline const std::set<std::string> kDiscoveryKeys = {
    "fabric.ca",    "fabric.ca-port",    "fabric.node-name-map", "fabric.max-smps",
    "fabric.m-key", "discovery.timeout", "discovery.retries"};
inline const std::set<std::string> kMadKeys = {"mad.window", "mad.per-node", "mad.timeout",
                                               "mad.retries"};

// The collector's `keys` on a command that reaches the fabric itself, and their old spellings.
void add_fabric_flags(CLI::App& app, config::FlagValues& flags, const std::set<std::string>& keys);

// The poller's options the flags give (the others at their defaults); `fallback` holds the
// command's own defaults.
Result<collector::PollerOptions> fabric_options(const config::FlagValues& flags,
                                                collector::PollerOptions fallback = {});

// A command's length or period in seconds that also takes a duration as the configuration
// writes one ("90", "1.5", "1m30s", "500ms"), from `min` to `max` seconds (a duration: at most
// a day). "0" is taken only when `min` is 0, where it keeps the option's "none" meaning.
CLI::Option* add_seconds_option(CLI::App& app, const std::string& name, double& seconds,
                                const std::string& help, double min, double max);

}  // namespace ibpulse::cli
