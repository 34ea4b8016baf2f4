// health.json: the link health a restart must not forget (health.h, SavedHealth).
#include <nlohmann/json.hpp>

#include "ibpulse/base/number.h"
#include "ibpulse/exporters/alerts/health.h"

namespace ibpulse::exporters::alerts {

using nlohmann::json;

std::string encode_health(const HealthSnapshot& health, int64_t unix_seconds) {
  json ports = json::array();
  for (const PortHealth& p : health.ports) {
    if (p.reasons == 0 && p.link_flaps == 0) continue;
    ports.push_back({{"node_guid", collector::guid_string(p.key.node_guid)},
                     {"port", p.key.port},
                     {"reasons", p.reasons},
                     {"link_flaps", p.link_flaps}});
  }
  return json{{"version", 1}, {"saved_unix_seconds", unix_seconds}, {"ports", std::move(ports)}}
             .dump(1) +
         "\n";
}

Result<SavedHealth> decode_health(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Err("not JSON");
  if (j.value("version", 0) != 1)
    return Err("version {} (this ibpulse reads 1)", j.value("version", 0));
  SavedHealth out;
  if (!j.contains("saved_unix_seconds") || !j["saved_unix_seconds"].is_number_integer()) {
    return Err("no saved_unix_seconds");
  }
  out.saved_unix_seconds = j["saved_unix_seconds"].get<int64_t>();
  if (!j.contains("ports") || !j["ports"].is_array()) return Err("no ports");
  for (const json& p : j["ports"]) {
    SavedPortHealth s;
    const auto guid = p.value("node_guid", std::string());
    const auto parsed = guid.starts_with("0x") ? parse_unsigned(guid) : Result<uint64_t>(Err("x"));
    const auto port = p.value("port", -1);
    const auto reasons = p.value("reasons", -1);
    const auto flaps = p.value("link_flaps", int64_t{-1});
    if (!parsed || port < 0 || port > 255 || reasons < 0 || reasons >= (1 << kHealthReasonCount) ||
        flaps < 0 || flaps > UINT32_MAX) {
      return Err("a damaged port entry: {}", p.dump());
    }
    s.key = {*parsed, static_cast<uint8_t>(port)};
    s.reasons = static_cast<uint16_t>(reasons);
    s.link_flaps = static_cast<uint32_t>(flaps);
    out.ports.push_back(s);
  }
  return out;
}

}  // namespace ibpulse::exporters::alerts
