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
      {"subnet_manager", process_json(s.subnet_manager)},
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
    s.subnet_manager = process_from(j.value("subnet_manager", json()));
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

Status write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  const auto tmp = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << content;
    if (!out.flush()) return Err("cannot write {}", tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Err("cannot rename {} to {}: {}", tmp, path.string(), ec.message());
  return Ok{};
}

}  // namespace ibpulse::sim
