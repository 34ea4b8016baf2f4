#include "config_flags.h"

#include <fmt/format.h>

#include <cmath>

#include "ibpulse/base/duration.h"
#include "ibpulse/collector/config_keys.h"

namespace ibpulse::cli {
namespace {

// A spelling discover, query and sample took before they shared run's key names.
struct OldSpelling {
  const char* flag;  // "--ca"
  const char* key;   // "fabric.ca"
  const char* unit;  // appended to the value: --mad.timeout-ms 50 is --mad.timeout 50ms
};

constexpr OldSpelling kOldSpellings[] = {
    {"--ca", "fabric.ca", ""},
    {"--ca-port", "fabric.ca-port", ""},
    {"--node-name-map", "fabric.node-name-map", ""},
    {"--max-smps", "fabric.max-smps", ""},
    {"--m-key", "fabric.m-key", ""},
    {"--mad.timeout-ms", "mad.timeout", "ms"},
    {"--ext-speeds-layout", "collect.ext-speeds-layout", ""},
};

void add_old_spelling(CLI::App& app, const OldSpelling& old, config::FlagValues& flags) {
  auto* option = app.add_option_function<std::string>(
      old.flag,
      [&flags, old](const std::string& value) {
        fmt::print(stderr, "ibpulse: {} is deprecated; write --{} {}{}\n", old.flag, old.key, value,
                   old.unit);
        flags[old.key] = {value + old.unit};
      },
      "");
  option->group("");  // hidden: --help shows the one vocabulary
}

}  // namespace

void add_config_flags(CLI::App& app, const std::vector<config::KeyInfo>& keys,
                      config::FlagValues& flags, const std::string& group) {
  for (const auto& key : keys) {
    const std::string help = key.default_text.empty()
                                 ? key.help
                                 : fmt::format("{} (default {})", key.help, key.default_text);
    // The exporter-toolkit names this flag --web.config.file; sites' unit files use it.
    const std::string names =
        key.name == "web.config-file" ? "--web.config-file,--web.config.file" : "--" + key.name;
    auto* option = app.add_option_function<std::vector<std::string>>(
        names, [&flags, name = key.name](const std::vector<std::string>& v) { flags[name] = v; },
        help);
    // Lists split at commas (`--poll.skip-nodes 0x1,0x2`), except values that hold commas
    // themselves: a map, free text.
    if (!key.text_with_commas) option->delimiter(',');
    option->group(group);
  }
}

void add_fabric_flags(CLI::App& app, config::FlagValues& flags, const std::set<std::string>& keys) {
  add_config_flags(app, key_infos(collector::poller_keys(), keys), flags,
                   "Fabric (the names `ibpulse run` takes)");
  for (const auto& old : kOldSpellings) {
    if (keys.contains(old.key)) add_old_spelling(app, old, flags);
  }
}

Result<collector::PollerOptions> fabric_options(const config::FlagValues& flags,
                                                collector::PollerOptions fallback) {
  if (auto s = config::apply(collector::poller_keys(), fallback, nullptr, flags, ""); !s) {
    return Error{s.error()};
  }
  return fallback;
}

CLI::Option* add_seconds_option(CLI::App& app, const std::string& name, double& seconds,
                                const std::string& help, double min, double max) {
  auto* option = app.add_option_function<std::string>(
      name,
      [&seconds, name, min, max](const std::string& text) {
        const auto outside = [&] {
          return CLI::ValidationError(name,
                                      fmt::format("'{}' is outside {}s to {}s", text, min, max));
        };
        // Plain seconds as before ("90", "1.5"), with their whole range; a duration otherwise.
        if (const auto plain = config::parse_real(text, -HUGE_VAL, HUGE_VAL)) {
          if (!(*plain >= min && *plain <= max)) throw outside();
          seconds = *plain;
          return;
        }
        const auto d = parse_duration(text);
        if (!d) throw CLI::ValidationError(name, d.error());
        const double s = std::chrono::duration<double>(*d).count();
        if (s < min || s > max) throw outside();
        seconds = s;
      },
      help);
  option->type_name("DURATION");
  return option;
}

}  // namespace ibpulse::cli
