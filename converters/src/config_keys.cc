#include "ibpulse/converters/config_keys.h"

namespace ibpulse::converters {

config::Keys<ConvertLoopOptions> convert_loop_keys() {
  using namespace std::chrono_literals;
  return {
      {{"counters.clear-policy",
        "never: leave hardware counters alone (other tools see them); threshold: clear a narrow "
        "counter without a 64-bit copy at counters.clear-threshold of its range",
        "never"},
       config::choice(
           std::vector<std::pair<std::string, ClearPolicy>>{{"never", ClearPolicy::kNever},
                                                            {"threshold", ClearPolicy::kThreshold}},
           IBPULSE_CONFIG_FIELD(converter.clear_policy))},
      {{"counters.clear-threshold", "Fraction of a narrow counter's range that triggers a clear",
        "0.75"},
       [](ConvertLoopOptions& o, const ConfigNode& v) -> Status {
         if (auto one = config::one_value(v); !one) return one;
         auto f = config::parse_real(v.text(), 0.1, 0.99);
         if (!f) return Err("expected a fraction from 0.1 to 0.99, got '{}'", v.text());
         o.converter.clear_fraction = *f;
         return Ok{};
       }},
      {{"counters.publish-interval", "Time between snapshots the exporters read", "1s"},
       config::duration(IBPULSE_CONFIG_FIELD(publish_interval), 10ms)},
      {{"counters.not-present-grace",
        "A port gone from discovery is reported notPresent this long, then forgotten (its "
        "ifIndex stays reserved)",
        "1h"},
       config::duration(IBPULSE_CONFIG_FIELD(converter.not_present_grace), 1s)},
      {{"counters.foreign-clear-window",
        "Three or more foreign clears (readings below the previous one we did not cause) within "
        "this time log a warning that another manager clears counters",
        "10m"},
       config::duration(IBPULSE_CONFIG_FIELD(foreign_clear_window), 1s)},
      {{"state.dir",
        "Directory of the counters' state file, which keeps totals and ifIndex numbers across "
        "restarts (a simulated fabric: its run directory; systemd: STATE_DIRECTORY; else "
        "~/.local/state/ibpulse)",
        ""},
       config::text(IBPULSE_CONFIG_FIELD(state_dir))},
      {{"state.save-interval",
        "Time between saves of the state file (also saved at stop); off: no state file, "
        "counters restart from the raw readings",
        "60s"},
       config::duration_or_off(IBPULSE_CONFIG_FIELD(state_save_interval))},
  };
}

}  // namespace ibpulse::converters
