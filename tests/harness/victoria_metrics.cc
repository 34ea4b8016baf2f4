#include "victoria_metrics.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "daemon_client.h"
#include "ibpulse/sim/process.h"
#include "tied_child.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

std::atomic<int> g_runs{0};

}  // namespace

VictoriaMetrics::VictoriaMetrics(Options options) : options_(std::move(options)) {
  dir_ = std::filesystem::temp_directory_path() /
         ("ibpulse-vm-" + std::to_string(::getpid()) + "-" + std::to_string(g_runs++));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_ / "data");
  port_ = free_loopback_port(SOCK_STREAM);
  start();
}

VictoriaMetrics::~VictoriaMetrics() {
  stop();
  std::filesystem::remove_all(dir_);
}

void VictoriaMetrics::start() {
  const auto program = sim::find_program("victoria-metrics");
  if (!program || port_ == 0 || pid_ > 0) return;
  // Queries see the newest samples at once (latency offset 0, no cache): tests wait for them.
  std::vector<std::string> args = {program->string(),
                                   "-httpListenAddr=127.0.0.1:" + std::to_string(port_),
                                   "-storageDataPath=" + (dir_ / "data").string(),
                                   "-search.latencyOffset=0s",
                                   "-search.disableCache",
                                   "-loggerLevel=WARN"};
  if (!options_.tls_cert_file.empty()) {
    args.insert(args.end(), {"-tls", "-tlsCertFile=" + options_.tls_cert_file.string(),
                             "-tlsKeyFile=" + options_.tls_key_file.string()});
  }
  if (!options_.username.empty()) {
    args.insert(args.end(), {"-httpAuth.username=" + options_.username,
                             "-httpAuth.password=" + options_.password});
  }
  // Appended: a restart after stop() keeps the earlier log.
  pid_ = spawn_tied_child(args[0], args, dir_ / "vm.log", {.append_log = true});
}

void VictoriaMetrics::stop() {
  stop_child(pid_, 10s);
  pid_ = 0;
}

bool VictoriaMetrics::wait_ready(std::chrono::milliseconds timeout) const {
  if (pid_ <= 0) return false;
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (get("/health").find("OK") == std::string::npos) {
    if (std::chrono::steady_clock::now() > until || ::waitpid(pid_, nullptr, WNOHANG) != 0)
      return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

std::string VictoriaMetrics::log() const {
  return read_text_file(dir_ / "vm.log");
}

std::string VictoriaMetrics::url(const std::string& path) const {
  const char* scheme = options_.tls_cert_file.empty() ? "http" : "https";
  return std::string(scheme) + "://127.0.0.1:" + std::to_string(port_) + path;
}

std::string VictoriaMetrics::get(const std::string& path,
                                 const std::vector<std::string>& params) const {
  return http_get_url(url(path), params,
                      {options_.tls_ca_file.string(), options_.username, options_.password});
}

nlohmann::json VictoriaMetrics::query(const std::string& expr) const {
  const auto answer =
      nlohmann::json::parse(get("/api/v1/query", {"query=" + expr}), nullptr, false);
  if (answer.is_discarded() || answer.value("status", "") != "success") return nullptr;
  return answer.at("data").at("result");
}

std::vector<nlohmann::json> VictoriaMetrics::export_series(const std::string& match, double start,
                                                           double end) const {
  std::istringstream lines(
      get("/api/v1/export",
          {"match[]=" + match, "start=" + std::to_string(start), "end=" + std::to_string(end)}));
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace ibpulse::testing
