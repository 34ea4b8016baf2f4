#include "daemon_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <functional>

namespace ibpulse::cli {
namespace {

using Setter = std::function<Status(DaemonConfig&, const std::vector<std::string>&)>;

struct KeyDef {
  ConfigKey key;
  Setter set;
};

Result<uint64_t> parse_uint(const std::string& text, uint64_t min, uint64_t max) {
  uint64_t v = 0;
  const bool hex = text.starts_with("0x");
  const char* begin = text.data() + (hex ? 2 : 0);
  auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), v, hex ? 16 : 10);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < min || v > max) {
    return Err("expected a whole number from {} to {}, got '{}'", min, max, text);
  }
  return v;
}

// "500ms", "1s", "2.5s", "5m", "1h", or plain seconds; at most a day.
Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  double factor = 1000;
  std::string number = text;
  if (text.ends_with("ms")) {
    factor = 1;
    number = text.substr(0, text.size() - 2);
  } else if (text.ends_with("s")) {
    number = text.substr(0, text.size() - 1);
  } else if (text.ends_with("m")) {
    factor = 60000;
    number = text.substr(0, text.size() - 1);
  } else if (text.ends_with("h")) {
    factor = 3600000;
    number = text.substr(0, text.size() - 1);
  }
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0) || v * factor > 86400e3) {
    return Err("expected a duration like 500ms, 1s, 5m or 1h (at most a day), got '{}'", text);
  }
  return std::chrono::milliseconds(static_cast<int64_t>(v * factor));
}

Status one_value(const std::vector<std::string>& v) {
  if (v.size() != 1) return Err("expected one value, got {}", v.size());
  return Ok{};
}

template <typename T>
Setter uint_key(T DaemonConfig::*member, uint64_t min, uint64_t max) {
  return [=](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    auto n = parse_uint(v[0], min, max);
    if (!n) return Error{n.error()};
    c.*member = static_cast<T>(*n);
    return Ok{};
  };
}

template <typename F>
Setter custom(F f) {
  return [f](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    if (auto one = one_value(v); !one) return one;
    return f(c, v[0]);
  };
}

Setter duration_key(std::chrono::milliseconds collector::Intervals::*member) {
  return custom([member](DaemonConfig& c, const std::string& v) -> Status {
    auto d = parse_duration(v);
    if (!d) return Error{d.error()};
    c.poller.intervals.*member = *d;
    return Ok{};
  });
}

Setter guid_list(std::set<uint64_t> collector::PollerOptions::*member) {
  return [member](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
    std::set<uint64_t> guids;
    for (const auto& item : v) {
      auto g = parse_uint(item, 1, UINT64_MAX);
      if (!g) return Err("bad GUID '{}': write 0x followed by hex digits", item);
      guids.insert(*g);
    }
    c.poller.*member = std::move(guids);
    return Ok{};
  };
}

const std::vector<KeyDef>& key_defs() {
  using collector::Intervals;
  static const std::vector<KeyDef> keys = {
      {{"fabric.ca", "Local HCA to use (default: the first)", ""},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         c.poller.discovery.ca = v;
         return Ok{};
       })},
      {{"fabric.ca-port", "Port of the local HCA (0: the first active)", "0"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto n = parse_uint(v, 0, 254);
         if (!n) return Error{n.error()};
         c.poller.discovery.ca_port = static_cast<int>(*n);
         return Ok{};
       })},
      {{"fabric.node-name-map", "ib-node-name-map file naming nodes", ""},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         c.node_name_map = v;
         return Ok{};
       })},
      {{"fabric.max-smps", "SMPs in flight during discovery", "64"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto n = parse_uint(v, 1, 256);
         if (!n) return Error{n.error()};
         c.poller.discovery.max_smps = static_cast<unsigned>(*n);
         return Ok{};
       })},
      {{"fabric.m-key", "M_Key for fabrics that protect their SMAs", ""},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto n = parse_uint(v, 0, UINT64_MAX);
         if (!n) return Error{n.error()};
         c.poller.discovery.m_key = *n;
         return Ok{};
       })},
      {{"discovery.interval", "Time between rediscoveries", "5m"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto d = parse_duration(v);
         if (!d) return Error{d.error()};
         c.poller.rediscover = *d;
         return Ok{};
       })},
      {{"mad.window", "PMA MADs in flight (capped at 64 on the simulator)", "256"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto n = parse_uint(v, 1, 4096);
         if (!n) return Error{n.error()};
         c.poller.mad.window = static_cast<unsigned>(*n);
         return Ok{};
       })},
      {{"mad.per-node", "MADs in flight to one node", "16"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto n = parse_uint(v, 1, 4096);
         if (!n) return Error{n.error()};
         c.poller.mad.per_node = static_cast<unsigned>(*n);
         return Ok{};
       })},
      {{"mad.timeout", "First attempt's timeout; each retry doubles it", "200ms"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto d = parse_duration(v);
         if (!d) return Error{d.error()};
         c.poller.mad.timeout = *d;
         return Ok{};
       })},
      {{"mad.retries", "Retries per MAD", "3"},
       custom([](DaemonConfig& c, const std::string& v) -> Status {
         auto n = parse_uint(v, 0, 20);
         if (!n) return Error{n.error()};
         c.poller.mad.retries = static_cast<unsigned>(*n);
         return Ok{};
       })},
      {{"poll.counters-interval", "PortCounters/PortCountersExtended of every linked port", "1s"},
       duration_key(&Intervals::counters)},
      {{"poll.details-interval", "Error details, flow control, per-VL counters", "10s"},
       duration_key(&Intervals::details)},
      {{"poll.idle-interval", "Ports without a link", "60s"}, duration_key(&Intervals::idle)},
      {{"poll.skip-nodes", "Node GUIDs never polled (list)", ""},
       guid_list(&collector::PollerOptions::skip_nodes)},
      {{"poll.no-extended-nodes",
        "Node GUIDs read through 32-bit PortCounters only, ignoring PortCountersExtended (list)",
        ""},
       guid_list(&collector::PollerOptions::no_extended_nodes)},
      {{"collector.ring-size", "Samples buffered between poller and converters", "65536"},
       uint_key(&DaemonConfig::ring_size, 1024, 1u << 24)},
  };
  return keys;
}

const KeyDef* find_key(const std::string& name) {
  for (const auto& k : key_defs()) {
    if (k.key.name == name) return &k;
  }
  return nullptr;
}

std::vector<std::string> yaml_values(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node.IsSequence()) {
    for (const auto& item : node)
      out.push_back(item.as<std::string>());
  } else if (!node.IsNull()) {
    out.push_back(node.as<std::string>());
  }
  return out;
}

Status walk(const YAML::Node& node, const std::string& prefix, const std::string& file,
            std::map<std::string, std::pair<std::vector<std::string>, int>>& out) {
  for (const auto& entry : node) {
    const std::string name = prefix + entry.first.as<std::string>();
    const int line = entry.first.Mark().line + 1;
    if (entry.second.IsMap()) {
      if (auto s = walk(entry.second, name + ".", file, out); !s) return s;
      continue;
    }
    if (find_key(name) == nullptr) {
      return Err("{}:{}: unknown key '{}' (see `ibpulse run --help` for the keys)", file, line,
                 name);
    }
    out[name] = {yaml_values(entry.second), line};
  }
  return Ok{};
}

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = [] {
    std::vector<ConfigKey> out;
    for (const auto& k : key_defs())
      out.push_back(k.key);
    return out;
  }();
  return keys;
}

Result<std::map<std::string, std::pair<std::vector<std::string>, int>>> read_config_file(
    const std::filesystem::path& path) {
  std::map<std::string, std::pair<std::vector<std::string>, int>> out;
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    if (root.IsNull()) return out;
    if (!root.IsMap()) return Err("{}: the configuration must be a map of keys", path.string());
    if (auto s = walk(root, "", path.string(), out); !s) return Error{s.error()};
  } catch (const YAML::Exception& e) {
    return Err("{}:{}: {}", path.string(), e.mark.line + 1, e.msg);
  }
  return out;
}

Result<DaemonConfig> build_config(const std::filesystem::path& file, const ConfigValues& flags) {
  DaemonConfig config;
  if (!file.empty()) {
    auto values = read_config_file(file);
    if (!values) return Error{values.error()};
    for (const auto& [name, entry] : *values) {
      if (flags.count(name)) continue;  // the flag wins
      if (auto s = find_key(name)->set(config, entry.first); !s) {
        return Err("{}:{}: {}: {}", file.string(), entry.second, name, s.error());
      }
    }
  }
  for (const auto& [name, value] : flags) {
    if (auto s = find_key(name)->set(config, value); !s) return Err("--{}: {}", name, s.error());
  }
  if (!config.node_name_map.empty()) {
    auto names = collector::load_node_name_map(config.node_name_map);
    if (!names) return Error{names.error()};
    config.poller.discovery.names = std::move(*names);
  }
  return config;
}

void add_config_flags(CLI::App& app, ConfigValues& flags) {
  for (const auto& k : key_defs()) {
    const std::string help = k.key.default_text.empty()
                                 ? k.key.help
                                 : fmt::format("{} (default {})", k.key.help, k.key.default_text);
    auto* option = app.add_option_function<std::vector<std::string>>(
        "--" + k.key.name,
        [&flags, name = k.key.name](const std::vector<std::string>& v) { flags[name] = v; }, help);
    option->delimiter(',')->group("Configuration (also settable in the --config file)");
  }
}

}  // namespace ibpulse::cli
