#pragma once
// Configuration keys, declared next to the options they fill: each module lists its keys
// (dotted name, help, default, and a setter that reads a ConfigNode into its options struct),
// a program nests the modules' lists into one for its own options (nest()), reads the YAML file
// into it and then the flags named by the keys' dotted paths (`--mad.window 64`); flags win.
// The setters below read the kinds of value most keys take, the same way from both.
//
// Thread safety: value types and pure functions.

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "ibpulse/base/config_node.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/base/number.h"
#include "ibpulse/base/result.h"

namespace ibpulse::config {

struct KeyInfo {
  std::string name;  // dotted path: "mad.window"
  std::string help;
  std::string default_text;
  // A flag's value holds commas of its own (a map, free text): not split into a list there.
  bool text_with_commas = false;
  // The items may be maps: a flag's value written `{...}` is one (YAML flow text, JSON alike).
  // Elsewhere a flag's value is text as written: `[::]:161` is an address, not a list.
  bool maps = false;
};

template <typename T>
using Setter = std::function<Status(T&, const ConfigNode&)>;

template <typename T>
struct Key {
  KeyInfo info;
  Setter<T> set;
};
template <typename T>
using Keys = std::vector<Key<T>>;

// Adds `inner`'s keys to `out`, each filling the part of the outer options `part` returns:
// nest(keys, collector::poller_keys(), IBPULSE_CONFIG_FIELD(poller)).
template <typename Outer, typename Inner, typename Part>
void nest(Keys<Outer>& out, const Keys<Inner>& inner, Part part) {
  for (const auto& k : inner) {
    out.push_back(
        {k.info, [set = k.set, part](Outer& o, const ConfigNode& v) { return set(part(o), v); }});
  }
}

// Where a setter writes, in the options it is given: IBPULSE_CONFIG_FIELD(mad.window).
#define IBPULSE_CONFIG_FIELD(expr) ([](auto& options_) -> auto& { return options_.expr; })

// Flags as the command line gives them: a key's name and its values (a list key's items).
using FlagValues = std::map<std::string, std::vector<std::string>>;

// A flag's values as one node: one value is a scalar (or, for a key with `maps`, written as
// `{...}`, a map), several a list. Errors name the flag.
Result<ConfigNode> flag_node(const KeyInfo& key, const std::vector<std::string>& values);

// A YAML root's keys as dotted names (nested maps are paths, `mad: {window: 64}`), each with
// its value; an unknown one is an error naming its file and line, then `unknown_hint`.
Result<std::vector<std::pair<std::string, const ConfigNode*>>> flatten(
    const ConfigNode& root, const std::function<bool(const std::string&)>& known,
    std::string_view unknown_hint);

// Every text in the value (keys too) is valid UTF-8, as YAML requires: names end up in labels,
// SNMP strings and logs.
Status check_utf8(const ConfigNode& value);

// The file's values, then the flags (which win), set into `options` through `keys`.
template <typename T>
Status apply(const Keys<T>& keys, T& options, const ConfigNode* file, const FlagValues& flags,
             std::string_view unknown_hint) {
  const auto find = [&keys](const std::string& name) -> const Key<T>* {
    for (const auto& k : keys) {
      if (k.info.name == name) return &k;
    }
    return nullptr;
  };
  if (file != nullptr) {
    auto entries = flatten(
        *file, [&](const std::string& n) { return find(n) != nullptr; }, unknown_hint);
    if (!entries) return Error{entries.error()};
    for (const auto& [name, value] : *entries) {
      if (flags.contains(name)) continue;  // the flag wins
      auto s = check_utf8(*value);
      if (s) s = find(name)->set(options, *value);
      if (!s) {
        return Err("{}: {}: {}", value->where(), name, s.error());
      }
    }
  }
  for (const auto& [name, values] : flags) {
    const Key<T>* key = find(name);
    if (key == nullptr) return Err("--{}: not a configuration key", name);
    auto node = flag_node(key->info, values);
    if (!node) return Error{node.error()};
    auto s = check_utf8(*node);
    if (s) s = key->set(options, *node);
    if (!s) return Err("--{}: {}", name, s.error());
  }
  return Ok{};
}

// One scalar, or what was given instead.
Status one_value(const ConfigNode& v);
// The texts of a list key's items (a scalar: one); a map among them is an error.
Result<std::vector<std::string>> texts(const ConfigNode& v);

// Setters for the kinds of value most keys take, given where each writes (a field accessor,
// IBPULSE_CONFIG_FIELD): they apply to any options type.
template <typename Field>
auto number(uint64_t min, uint64_t max, Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto n = parse_unsigned(v.text(), min, max);
    if (!n) return Error{n.error()};
    auto& target = field(c);
    target = static_cast<std::remove_reference_t<decltype(target)>>(*n);
    return Ok{};
  };
}

// `min`: the setting's smallest sensible value (an interval of 0 would make a loop spin).
template <typename Field>
auto duration(Field field, std::chrono::milliseconds min = std::chrono::milliseconds(1)) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto d = parse_duration(v.text(), min);
    if (!d) return Error{d.error()};
    field(c) = *d;
    return Ok{};
  };
}

// A duration, or `off` / `0` to switch something off (0 ms).
template <typename Field>
auto duration_or_off(Field field, std::chrono::milliseconds min = std::chrono::milliseconds(1)) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    if (v.text() == "off" || v.text() == "0") {
      field(c) = std::chrono::milliseconds(0);
      return Ok{};
    }
    return duration(field, min)(c, v);
  };
}

// A real number from `min` to `max` (a BER: 1e-12).
Result<double> parse_real(const std::string& text, double min, double max);
template <typename Field>
auto real(double min, double max, Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto f = parse_real(v.text(), min, max);
    if (!f) return Error{f.error()};
    field(c) = *f;
    return Ok{};
  };
}

template <typename Field>
auto text(Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    field(c) = v.text();
    return Ok{};
  };
}

template <typename Field>
auto boolean(Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto value = parse_bool(v.text());
    if (!value) return Error{value.error()};
    field(c) = *value;
    return Ok{};
  };
}

template <typename Field>
auto strings(Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    auto items = texts(v);
    if (!items) return Error{items.error()};
    field(c) = std::move(*items);
    return Ok{};
  };
}

template <typename Field>
auto guids(Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    auto items = texts(v);
    if (!items) return Error{items.error()};
    std::set<uint64_t> out;
    for (const auto& item : *items) {
      auto g = parse_guid(item);
      if (!g) return Error{g.error()};
      out.insert(*g);
    }
    field(c) = std::move(out);
    return Ok{};
  };
}

// One of `choices` (its name, its value): "expected auto, legacy or rsfec, got 'x'".
template <typename Field, typename Value>
auto choice(std::vector<std::pair<std::string, Value>> choices, Field field) {
  return [=](auto& c, const ConfigNode& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    std::string names;
    for (size_t i = 0; i < choices.size(); ++i) {
      if (choices[i].first == v.text()) {
        field(c) = choices[i].second;
        return Ok{};
      }
      names += i == 0 ? "" : (i + 1 == choices.size() ? " or " : ", ");
      names += choices[i].first;
    }
    return Err("expected {}, got '{}'", names, v.text());
  };
}

}  // namespace ibpulse::config
