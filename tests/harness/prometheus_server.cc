#include "prometheus_server.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon_client.h"
#include "ibpulse/sim/process.h"
#include "tied_child.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

std::atomic<int> g_runs{0};

}  // namespace

PrometheusServer::PrometheusServer(uint16_t target_port, const Options& options) {
  dir_ = std::filesystem::temp_directory_path() /
         ("ibpulse-prometheus-" + std::to_string(::getpid()) + "-" + std::to_string(g_runs++));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_ / "data");
  {
    std::ofstream config(dir_ / "prometheus.yml");
    config << "global:\n"
              "  scrape_interval: 1s\n"
              "  scrape_timeout: 1s\n"
              "  evaluation_interval: "
           << options.evaluation_interval.count() << "s\n";
    if (!options.rule_files.empty()) {
      config << "rule_files:\n";
      for (const auto& file : options.rule_files)
        config << "  - " << file.string() << "\n";
    }
    if (!options.remote_write_receiver) {
      config << "scrape_configs:\n"
                "  - job_name: ibpulse\n";
      if (!options.ca_file.empty()) {
        config << "    scheme: https\n"
                  "    tls_config:\n"
                  "      ca_file: "
               << options.ca_file << "\n";
      }
      if (!options.username.empty()) {
        config << "    basic_auth:\n"
                  "      username: "
               << options.username << "\n      password: " << options.password << "\n";
      }
      config << "    static_configs:\n"
                "      - targets: ['"
             << options.target_host << ":" << target_port << "']\n";
    }
  }
  port_ = free_loopback_port(SOCK_STREAM);
  const auto program = sim::find_program("prometheus");
  if (!program || port_ == 0) return;
  // Everything the child needs is built before fork: it only opens, dups and execs.
  std::vector<std::string> args = {
      program->string(), "--config.file=" + (dir_ / "prometheus.yml").string(),
      "--storage.tsdb.path=" + (dir_ / "data").string(),
      "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"};
  if (options.remote_write_receiver) args.push_back("--web.enable-remote-write-receiver");
  pid_ = spawn_tied_child(args[0], args, dir_ / "prometheus.log");
}

PrometheusServer::PrometheusServer(uint16_t target_port) : PrometheusServer(target_port, {}) {}

PrometheusServer::~PrometheusServer() {
  stop_child(pid_, 5s);
  std::filesystem::remove_all(dir_);
}

std::string PrometheusServer::log() const {
  return read_text_file(dir_ / "prometheus.log");
}

std::string PrometheusServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

bool PrometheusServer::wait_ready(std::chrono::milliseconds timeout) const {
  if (pid_ <= 0) return false;
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (http_get_url(url("/-/ready")).find("Ready") == std::string::npos) {
    if (std::chrono::steady_clock::now() > until || ::waitpid(pid_, nullptr, WNOHANG) != 0)
      return false;
    std::this_thread::sleep_for(200ms);
  }
  return true;
}

nlohmann::json PrometheusServer::query(const std::string& expr, std::optional<double> at,
                                       std::string* error) const {
  std::vector<std::string> params = {"query=" + expr};
  if (at) params.push_back("time=" + std::to_string(*at));
  const std::string body = http_get_url(url("/api/v1/query"), params);
  const auto answer = nlohmann::json::parse(body, nullptr, false);
  if (answer.is_discarded() || answer.value("status", "") != "success") {
    if (error) *error = body;
    return nullptr;
  }
  return answer.at("data").at("result");
}

double PrometheusServer::value(const std::string& expr, std::optional<double> at) const {
  const auto result = query(expr, at);
  if (!result.is_array() || result.size() != 1) return std::nan("");
  return std::stod(result[0].at("value")[1].get<std::string>());
}

double PrometheusServer::wait_at_least(const std::string& expr, double min,
                                       std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  double v = value(expr);
  while (!(v >= min) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(250ms);
    v = value(expr);
  }
  return v;
}

int PrometheusServer::count(const std::string& expr) const {
  const auto result = query(expr);
  if (!result.is_array()) return -1;
  return static_cast<int>(result.size());
}

bool PrometheusServer::wait_for_series(const std::string& expr,
                                       std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (count(expr) <= 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(500ms);
  }
  return true;
}

}  // namespace ibpulse::testing
