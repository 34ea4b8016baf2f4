#include "ibpulse/exporters/alerts/config_keys.h"

namespace ibpulse::exporters::alerts {

config::Keys<AlertOptions> alert_keys() {
  using namespace std::chrono_literals;
  return {
      {{"alerts.rules",
        "Threshold rules (list of maps: name, counter or state, condition, window, for, "
        "clear-after, renotify, severity, scope; docs/alerts.md); best kept in the config file",
        "", true, true},
       [](AlertOptions& o, const ConfigNode& v) -> Status {
         o.rules.clear();
         for (const ConfigNode* rule : v.as_list())
           o.rules.push_back(*rule);
         return Ok{};
       }},
      {{"alerts.default-rules",
        "Also apply the default rule set (docs/alerts.md); a configured rule of the same name "
        "replaces a default one",
        "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(default_rules))},
      {{"alerts.rate-limit", "Notifications per alerts.rate-interval over the whole fabric", "50"},
       config::number(1, 1000000, IBPULSE_CONFIG_FIELD(engine.rate_limit))},
      {{"alerts.rate-interval",
        "Interval of the notification rate limit; one ibpulseRateLimited summary ends each "
        "interval that withheld any",
        "10s"},
       config::duration(IBPULSE_CONFIG_FIELD(engine.rate_interval), 1s)},
      {{"alerts.link-hold-down",
        "After a port's linkDown/linkUp pair, further link changes of that port within this "
        "time are withheld and only its final state is notified (off: no hold-down)",
        "60s"},
       config::duration_or_off(IBPULSE_CONFIG_FIELD(engine.link_hold_down))},
      {{"alerts.sma-window",
        "IB-SMA-MIB's threshold notifications: 129 (130) when a port's "
        "LocalLinkIntegrityErrors (ExcessiveBufferOverrunErrors) grows by more than its "
        "PortInfo LocalPhysErrorThreshold (OverrunErrorThreshold) within this window, once "
        "per window and port",
        "60s"},
       config::duration(IBPULSE_CONFIG_FIELD(engine.sma_window), 1s)},
  };
}

}  // namespace ibpulse::exporters::alerts
