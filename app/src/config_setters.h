#pragma once
// What a configuration key is made of (app/src/daemon_config.cc reads the table): its name,
// help and default (ConfigKey), and a setter that parses its values into a DaemonConfig. The
// setters below cover the kinds of value most keys take. Private to app/.
//
// Thread safety: the setters are pure functions of their arguments.

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "daemon_config.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/base/number.h"
#include "ibpulse/base/result.h"

namespace ibpulse::cli {

using Setter = std::function<Status(DaemonConfig&, const std::vector<std::string>&)>;

struct KeyDef {
  ConfigKey key;
  Setter set;
};

inline Status one_value(const std::vector<std::string>& v) {
  if (v.size() != 1) return Err("expected one value, got {}", v.size());
  return Ok{};
}

// Setters for one kind of value, given where it goes: `[](DaemonConfig& c) -> auto& {...}`.
template <typename Field>
Setter number(uint64_t min, uint64_t max, Field field) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto n = parse_unsigned(v[0], min, max);
    if (!n) return Error{n.error()};
    auto& target = field(c);
    target = static_cast<std::remove_reference_t<decltype(target)>>(*n);
    return Ok{};
  };
}

// `min`: the setting's smallest sensible value (an interval of 0 would make a loop spin).
template <typename Field>
Setter duration(Field field, std::chrono::milliseconds min = std::chrono::milliseconds(1)) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto d = parse_duration(v[0], min);
    if (!d) return Error{d.error()};
    field(c) = *d;
    return Ok{};
  };
}

// A real number in [min, max] (a BER: 1e-12).
template <typename Field>
Setter real(double min, double max, Field field) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    char* end = nullptr;
    const double f = std::strtod(v[0].c_str(), &end);
    if (v[0].empty() || *end != '\0' || !(f >= min && f <= max)) {
      return Err("expected a number from {} to {}, got '{}'", min, max, v[0]);
    }
    field(c) = f;
    return Ok{};
  };
}

template <typename Field>
Setter text(Field field) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    field(c) = v[0];
    return Ok{};
  };
}

template <typename Field>
Setter guids(Field field) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    std::set<uint64_t> out;
    for (const auto& item : v) {
      auto g = parse_guid(item);
      if (!g) return Error{g.error()};
      out.insert(*g);
    }
    field(c) = std::move(out);
    return Ok{};
  };
}

// A duration, or `off` / `0` to switch something off.
template <typename Field>
Setter duration_or_off(Field field, std::chrono::milliseconds min = std::chrono::milliseconds(1)) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    if (v[0] == "off" || v[0] == "0") {
      field(c) = std::chrono::milliseconds(0);
      return Ok{};
    }
    return duration(field, min)(c, v);
  };
}

template <typename Field>
Setter boolean(Field field) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto value = parse_bool(v[0]);
    if (!value) return Error{value.error()};
    field(c) = *value;
    return Ok{};
  };
}

template <typename Field>
Setter strings(Field field) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    field(c) = v;
    return Ok{};
  };
}

// Where a setter writes: IBPULSE_FIELD(health.flap_window).
#define IBPULSE_FIELD(expr) ([](DaemonConfig & c) -> auto& { return c.expr; })

// The health.* and congestion.* keys (link_health_config.cc).
std::vector<KeyDef> link_health_keys();

}  // namespace ibpulse::cli
