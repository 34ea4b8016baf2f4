#include "state_json.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

namespace ibpulse::sim {
namespace {

using nlohmann::json;

json process_json(const std::optional<ProcessRef>& p) {
  if (!p) return nullptr;
  return json{{"pid", p->pid}, {"start_time", p->start_time}};
}

std::optional<ProcessRef> process_from(const json& j) {
  if (!j.is_object()) return std::nullopt;
  return ProcessRef{j.at("pid").get<pid_t>(), j.at("start_time").get<uint64_t>()};
}

std::string guid_text(uint64_t guid) {
  return fmt::format("0x{:016x}", guid);
}

json parts_json(const std::vector<SubnetPart>& parts) {
  json out = json::array();
  for (const auto& p : parts) {
    out.push_back({{"attach_node", p.attach_node},
                   {"subnet_prefix", prefix_text(p.subnet_prefix)},
                   {"nodes", p.nodes},
                   {"links", p.links},
                   {"subnet_manager", process_json(p.subnet_manager)}});
  }
  return out;
}

std::vector<SubnetPart> parts_from(const json& j) {
  std::vector<SubnetPart> parts;
  // A fabric started before parts were recorded: one part, its SM at the first node.
  if (!j.contains("parts")) {
    parts.push_back(SubnetPart{});
    parts.back().subnet_manager = process_from(j.value("subnet_manager", json()));
    return parts;
  }
  for (const auto& p : j.at("parts")) {
    SubnetPart part;
    part.attach_node = p.at("attach_node").get<std::string>();
    part.subnet_prefix = std::stoull(p.at("subnet_prefix").get<std::string>(), nullptr, 16);
    part.nodes = p.value("nodes", size_t{0});
    part.links = p.value("links", size_t{0});
    part.subnet_manager = process_from(p.value("subnet_manager", json()));
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace

json to_json(const FabricState& s) {
  return json{
      {"name", s.name},
      {"socket_name", s.socket_name},
      {"preload", s.preload},
      {"run_dir", s.paths.dir.string()},
      {"console", s.paths.console().fifo.string()},
      {"topology", s.paths.topology().string()},
      {"ports_file", s.paths.ports().string()},
      {"ibsim", process_json(s.ibsim)},
      {"parts", parts_json(s.parts)},
      {"watcher", process_json(s.watcher)},
      {"nodes", s.nodes},
      {"switches", s.switches},
      {"hcas", s.hcas},
      {"ports", s.ports},
      {"links", s.links},
      {"seconds_to_ready", s.seconds_to_ready},
      {"max_mads", s.max_mads},
  };
}

Result<FabricState> state_from_json(const json& j) {
  try {
    FabricState s;
    s.name = j.at("name").get<std::string>();
    s.socket_name = j.at("socket_name").get<std::string>();
    s.preload = j.at("preload").get<std::string>();
    s.paths.dir = j.at("run_dir").get<std::string>();
    if (auto p = process_from(j.at("ibsim"))) s.ibsim = *p;
    s.parts = parts_from(j);
    s.watcher = process_from(j.value("watcher", json()));
    s.nodes = j.value("nodes", size_t{0});
    s.switches = j.value("switches", size_t{0});
    s.hcas = j.value("hcas", size_t{0});
    s.ports = j.value("ports", size_t{0});
    s.links = j.value("links", size_t{0});
    s.seconds_to_ready = j.value("seconds_to_ready", 0.0);
    s.max_mads = j.value("max_mads", kSimMaxMadsInFlight);
    return s;
  } catch (const json::exception& e) {
    return Err("state file is damaged: {}", e.what());
  }
}

json to_json(const std::vector<DumpPort>& ports) {
  json out = json::array();
  for (const auto& p : ports) {
    json entry{
        {"node", p.node},
        {"type", p.type == NodeType::kSwitch ? "switch" : "hca"},
        {"node_guid", guid_text(p.node_guid)},
        {"port_guid", guid_text(p.port_guid)},
        {"port", p.port},
        {"lid", p.lid},
        {"state", p.state},
        {"phys_state", p.phys_state},
        {"width", p.width},
        {"speed", p.speed},
    };
    if (p.linked()) {
      entry["remote_node"] = p.remote_node;
      entry["remote_port"] = p.remote_port;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Status save_state(const FabricState& s) {
  return write_file_atomically(s.paths.state(), to_json(s).dump(2) + "\n");
}

}  // namespace ibpulse::sim
