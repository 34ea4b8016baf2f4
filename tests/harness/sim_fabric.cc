#include "sim_fabric.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ibpulse::testing {
namespace {

SimFabric* g_fabric = nullptr;
std::unique_ptr<SimFabric> g_owned;

std::string unique_suffix() {
  std::random_device rd;
  return fmt::format("{}-{:04x}", ::getpid(), rd() & 0xffff);
}

}  // namespace

sim::CommandOutput run_ibpulse(const std::vector<std::string>& args,
                               std::chrono::milliseconds timeout, const sim::EnvVars& env) {
  std::vector<std::string> argv = {IBPULSE_BINARY_FOR_TESTS};
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = sim::run_command(argv, env, timeout);
  if (!result) throw std::runtime_error(result.error());
  return *result;
}

std::map<std::string, uint64_t> perfquery_fields(const std::string& text) {
  std::map<std::string, uint64_t> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const auto value = line.find_first_not_of('.', colon + 1);
    if (value == std::string::npos) continue;
    out[line.substr(0, colon)] = std::stoull(line.substr(value), nullptr, 0);
  }
  return out;
}

uint64_t perfquery_field(const std::string& text, const std::string& field) {
  const auto fields = perfquery_fields(text);
  const auto it = fields.find(field);
  if (it == fields.end()) throw std::runtime_error("no " + field + " in:\n" + text);
  return it->second;
}

// "Field:....value" of smpquery's output.
std::string smpquery_field(const std::string& text, const std::string& field) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(field + ":")) continue;
    const auto value = line.find_first_not_of('.', field.size() + 1);
    return value == std::string::npos ? "" : line.substr(value);
  }
  return "";
}

// Node descriptions ibnetdiscover lists: the `# "name"` after every node header.
std::set<std::string> ibnetdiscover_names(const std::string& text) {
  static const std::regex header(R"(^(Switch|Ca)\s+\d+\s+"[^"]+"\s+#\s+"([^"]+)\")");
  std::set<std::string> out;
  std::istringstream lines(text);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, m, header)) out.insert(m[2]);
  }
  return out;
}

std::string guid_text(uint64_t guid) {
  return fmt::format("0x{:016x}", guid);
}

std::unique_ptr<SimFabric> SimFabric::up(const std::string& label,
                                         const std::vector<std::string>& extra_args) {
  std::unique_ptr<SimFabric> f(new SimFabric());
  f->name_ = fmt::format("{}-{}", label, unique_suffix());
  f->root_ = std::filesystem::temp_directory_path() / ("ibpulse-test-" + f->name_);
  std::vector<std::string> args = {"sim",
                                   "up",
                                   "--json",
                                   "--name",
                                   f->name_,
                                   "--root",
                                   f->root_.string(),
                                   "--owner-pid",
                                   std::to_string(::getpid())};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  const auto out = run_ibpulse(args, std::chrono::minutes(5));
  if (out.exit_code != 0) {
    throw std::runtime_error(fmt::format("sim up failed ({}): {}", out.exit_code, out.err));
  }
  f->up_ = true;
  const auto state = nlohmann::json::parse(out.out);
  f->socket_name_ = state.at("socket_name").get<std::string>();
  for (const auto& p : state.at("parts")) {
    f->parts_.push_back({p.at("attach_node").get<std::string>(),
                         std::stoull(p.at("subnet_prefix").get<std::string>(), nullptr, 16)});
  }
  const auto ports = nlohmann::json::parse(std::ifstream(f->run_dir() / "ports.json"));
  for (const auto& p : ports) {
    PortInfo info;
    info.node = p.at("node").get<std::string>();
    info.port = p.at("port").get<unsigned>();
    info.lid = p.at("lid").get<unsigned>();
    info.node_guid = std::stoull(p.at("node_guid").get<std::string>(), nullptr, 16);
    info.state = p.at("state").get<std::string>();
    info.remote_node = p.value("remote_node", "");
    info.remote_port = p.value("remote_port", 0u);
    f->ports_.push_back(std::move(info));
  }
  return f;
}

// A fabric that cannot be taken down ends the test binary (std::terminate names the error);
// --owner-pid still takes the fabric down when the binary is gone.
SimFabric::~SimFabric() {  // NOLINT(bugprone-exception-escape): as said above
  down();
}

void SimFabric::down() {
  if (!up_) return;
  up_ = false;
  run_ibpulse({"sim", "down", "--name", name_, "--root", root_.string()});
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

const PortInfo& SimFabric::port(const std::string& node, unsigned port) const {
  for (const auto& p : ports_) {
    if (p.node == node && p.port == port) return p;
  }
  throw std::runtime_error(fmt::format("no port {}[{}] in fabric {}", node, port, name_));
}

unsigned SimFabric::lid(const std::string& node, unsigned p) const {
  return port(node, p).lid;
}

sim::CommandOutput SimFabric::sim(const std::string& verb,
                                  const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"sim", verb, "--name", name_, "--root", root_.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_ibpulse(argv);
}

namespace {

// `ibpulse run` serves /metrics on :9731 and SNMP on 127.0.0.1:1161 by default; test binaries
// run daemons side by side, so a daemon under test listens on free loopback ports unless the
// test names an address (a config file's snmp.listen: give --snmp.listen too).
std::vector<std::string> with_free_ports(std::vector<std::string> command) {
  const bool daemon =
      command.size() >= 2 && command[0] == IBPULSE_BINARY_FOR_TESTS && command[1] == "run";
  const auto given = [&](const char* flag) {
    return std::find(command.begin(), command.end(), flag) != command.end();
  };
  // Tests run in parallel: every daemon gets free ports unless the test chose its own.
  if (daemon && !given("--web.listen-address"))
    command.insert(command.begin() + 2, {"--web.listen-address", "127.0.0.1:0"});
  if (daemon && !given("--snmp.listen"))
    command.insert(command.begin() + 2, {"--snmp.listen", "127.0.0.1:0"});
  return command;
}

}  // namespace

sim::CommandOutput SimFabric::exec(const std::vector<std::string>& command,
                                   const std::string& host) const {
  std::vector<std::string> args;
  if (!host.empty()) args = {"--host", host};
  args.push_back("--");
  const auto full = with_free_ports(command);
  args.insert(args.end(), full.begin(), full.end());
  return sim("exec", args);
}

sim::ProcessRef SimFabric::start_client(const std::vector<std::string>& command,
                                        const std::filesystem::path& log, const sim::EnvVars& env,
                                        const std::string& host) const {
  sim::SpawnSpec spec;
  spec.argv = {IBPULSE_BINARY_FOR_TESTS, "sim", "exec", "--name", name_, "--root", root_.string()};
  if (!host.empty()) {
    spec.argv.push_back("--host");
    spec.argv.push_back(host);
  }
  spec.argv.push_back("--");
  const auto full = with_free_ports(command);
  spec.argv.insert(spec.argv.end(), full.begin(), full.end());
  spec.env = env;
  spec.stdout_path = log;
  spec.stderr_path = log;
  auto p = sim::spawn_detached(spec);
  if (!p) throw std::runtime_error("cannot start " + command.front() + ": " + p.error());
  return *p;
}

void SimFabric::set(const std::string& line) const {
  const auto out = sim("set", {line});
  if (out.exit_code != 0) throw std::runtime_error("console rejected '" + line + "': " + out.err);
}

uint64_t SimFabric::perfquery(const std::string& node, unsigned p, const std::string& field,
                              bool extended) const {
  std::vector<std::string> cmd = {"perfquery"};
  if (extended) cmd.push_back("-x");
  cmd.push_back(std::to_string(lid(node, p)));
  cmd.push_back(std::to_string(p));
  const auto out = exec(cmd);
  if (out.exit_code != 0) {
    throw std::runtime_error(fmt::format("perfquery {}[{}] failed: {}", node, p, out.err));
  }
  return perfquery_field(out.out, field);
}

void SimFabricEnvironment::SetUp() {
  g_owned = SimFabric::up("env", extra_args_);
  g_fabric = g_owned.get();
}

void SimFabricEnvironment::TearDown() {
  g_fabric = nullptr;
  g_owned.reset();
}

SimFabric& SimFabricEnvironment::fabric() {
  if (g_fabric == nullptr) throw std::runtime_error("no fabric: SimFabricEnvironment not set up");
  return *g_fabric;
}

}  // namespace ibpulse::testing
