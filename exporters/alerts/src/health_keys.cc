// The link health (health.*) and congestion (congestion.*) configuration keys: docs/health.md
// and docs/congestion.md say what each does. (congestion.xmit-wait-tick sets the poller and the
// converter: the daemon declares it.)
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <map>
#include <string_view>

#include "ibpulse/base/config_keys.h"
#include "ibpulse/exporters/alerts/config_keys.h"

namespace ibpulse::exporters::alerts {
namespace {

using config::texts;

// A link speed as PortInfo names it (infiniband_port_info's link_speed).
bool is_speed_name(std::string_view s) {
  constexpr std::array<std::string_view, 8> kSpeeds = {"SDR", "DDR", "QDR", "FDR",
                                                       "EDR", "HDR", "NDR", "XDR"};
  return std::ranges::any_of(kSpeeds, [&](std::string_view name) { return name == s; });
}

Result<double> ber_value(const std::string& text) {
  auto f = config::parse_real(text, 1e-30, 1);
  if (!f) return Err("expected a BER from 1e-30 to 1, got '{}'", text);
  return *f;
}

// health.ber-spec-by-speed: SPEED=BER items.
Status set_ber_spec_by_speed(HealthOptions& h, const ConfigNode& node) {
  auto v = texts(node);
  if (!v) return Error{v.error()};
  std::vector<std::pair<std::string, double>> specs;
  for (const std::string& item : *v) {
    const size_t eq = item.find('=');
    const std::string speed = item.substr(0, eq);
    if (eq == std::string::npos || !is_speed_name(speed)) {
      return Err("expected SPEED=BER (SPEED one of SDR DDR QDR FDR EDR HDR NDR XDR), got '{}'",
                 item);
    }
    auto ber = ber_value(item.substr(eq + 1));
    if (!ber) return Err("'{}': {}", item, ber.error());
    specs.emplace_back(speed, *ber);
  }
  h.ber_spec_by_speed = std::move(specs);
  return Ok{};
}

// health.ufm-windows: SPEED=WINDOW:BER items (SPEED `*`: every speed).
Status set_ufm_windows(HealthOptions& h, const ConfigNode& node) {
  auto v = texts(node);
  if (!v) return Error{v.error()};
  std::vector<UfmWindowSetting> windows;
  for (const std::string& item : *v) {
    const size_t eq = item.find('=');
    const size_t colon = item.find(':', eq == std::string::npos ? 0 : eq);
    const std::string speed = item.substr(0, eq);
    if (eq == std::string::npos || colon == std::string::npos ||
        !(speed == "*" || is_speed_name(speed))) {
      return Err("expected SPEED=WINDOW:BER (e.g. NDR=12m:1e-14; SPEED * for all), got '{}'", item);
    }
    auto window = parse_duration(item.substr(eq + 1, colon - eq - 1), std::chrono::seconds(1));
    if (!window) return Err("'{}': {}", item, window.error());
    auto ber = ber_value(item.substr(colon + 1));
    if (!ber) return Err("'{}': {}", item, ber.error());
    windows.push_back({speed == "*" ? std::string() : speed, *window, *ber});
  }
  h.ufm_windows = std::move(windows);
  return Ok{};
}

// "2026-11-29T06:00:00Z" (UTC, as RFC 3339 writes it; seconds optional) -> a time point.
Result<std::chrono::system_clock::time_point> parse_utc(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M", &tm);
  if (end != nullptr && *end == ':') end = strptime(end, ":%S", &tm);
  if (end == nullptr || std::string_view(end) != "Z") {
    return Err("expected a UTC time like 2026-11-29T06:00:00Z, got '{}'", text);
  }
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

// health.maintenance: NODE@UNTIL items, NODE a GUID or a pattern on node names.
Status set_maintenance(HealthOptions& h, const ConfigNode& value) {
  auto v = texts(value);
  if (!v) return Error{v.error()};
  std::vector<MaintenanceWindow> windows;
  for (const std::string& item : *v) {
    const size_t at = item.rfind('@');
    if (at == std::string::npos || at == 0) {
      return Err(
          "expected NODE@UNTIL (a GUID or a node name pattern, then a UTC time like "
          "2026-11-29T06:00:00Z), got '{}'",
          item);
    }
    const std::string node = item.substr(0, at);
    if (auto valid = check_maintenance_node(node); !valid) {
      return Err("'{}': {}", item, valid.error());
    }
    auto until = parse_utc(item.substr(at + 1));
    if (!until) return Err("'{}': {}", item, until.error());
    windows.push_back({node, *until});
  }
  h.maintenance = std::move(windows);
  return Ok{};
}

// A share from 0 to 1 (a utilisation, a wait ratio).
template <typename Field>
auto share(Field field) {
  return config::real(0, 1, field);
}

}  // namespace

config::Keys<HealthOptions> health_keys() {
  using namespace std::chrono_literals;
  return {
      {{"health.ber-window", "Window of the BER gauges and rules", "10m"},
       config::duration(IBPULSE_CONFIG_FIELD(ber_window), 1s)},
      {{"health.ber-spec",
        "BER above which a port fails: symbol errors (post-FEC on FEC links) and RS-FEC "
        "uncorrectable blocks, judged on the 95% Poisson lower bound of their count",
        "1e-12"},
       config::real(1e-30, 1, IBPULSE_CONFIG_FIELD(ber_spec))},
      {{"health.ber-method",
        "poisson (the lower bound over health.ber-window), ufm (UFM-style windows: NDR 2.88 "
        "errors in 12 min, 3 in 125 min, scaled by each port's rate) or both",
        "poisson"},
       config::choice(
           std::vector<std::pair<std::string, BerMethod>>{{"poisson", BerMethod::kPoisson},
                                                          {"ufm", BerMethod::kUfm},
                                                          {"both", BerMethod::kBoth}},
           IBPULSE_CONFIG_FIELD(ber_method))},
      {{"health.ber-spec-by-speed",
        "Per-speed BER specs overriding health.ber-spec (list of SPEED=BER, e.g. NDR=1e-12)", ""},
       set_ber_spec_by_speed},
      {{"health.ufm-windows",
        "UFM-style windows for health.ber-method ufm or both (list of SPEED=WINDOW:BER; SPEED * "
        "for every speed); the default is UFM's NDR pair, NDR=12m:1e-14 and NDR=125m:1e-15",
        ""},
       set_ufm_windows},
      {{"health.flap-window", "Window of the link flap and error burst counts", "1m"},
       config::duration(IBPULSE_CONFIG_FIELD(flap_window), 1s)},
      {{"health.flap-limit",
        "LinkDowned + LinkErrorRecovery increases in the flap window above which a port is "
        "flapping (failing)",
        "5"},
       config::number(0, 1000000, IBPULSE_CONFIG_FIELD(flap_limit))},
      {{"health.burst-errors",
        "Symbol, link integrity and buffer overrun errors in the flap window above which a port "
        "is at least degraded",
        "100"},
       config::number(0, UINT32_MAX, IBPULSE_CONFIG_FIELD(burst_errors))},
      {{"health.maintenance",
        "Links being worked on, whose alerts are withheld until a time (list of NODE@UNTIL: "
        "NODE a node GUID or a regular expression on node names, UNTIL a UTC time like "
        "2026-11-29T06:00:00Z); both ends of a link on such a node are excluded",
        ""},
       set_maintenance},
      {{"health.switch-hold",
        "After a switch lost power or rebooted (one switch_down alert), how long the alerts of "
        "its links stay withheld once it is back",
        "5m"},
       config::duration(IBPULSE_CONFIG_FIELD(switch_hold), 1s)},
      {{"congestion.wait-ratio",
        "Share of the time a port waits to send (PortXmitWait) from which it is congested, 0-1",
        "0.05"},
       share(IBPULSE_CONFIG_FIELD(congestion.wait_ratio))},
      {{"congestion.root-utilization",
        "Utilisation (of the link's data rate, 0-1) from which a congested port is a root: it "
        "sends at close to line rate and still waits",
        "0.9"},
       share(IBPULSE_CONFIG_FIELD(congestion.root_utilization))},
      {{"congestion.victim-utilization",
        "Utilisation (0-1) below which a congested port is a victim: it waits because the port "
        "downstream is blocked",
        "0.5"},
       share(IBPULSE_CONFIG_FIELD(congestion.victim_utilization))},
  };
}

}  // namespace ibpulse::exporters::alerts
