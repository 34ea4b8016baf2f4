#include "daemon_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <thread>

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

std::atomic<int> g_logs{0};

}  // namespace

Daemon::Daemon(const SimFabric& fabric, const std::vector<std::string>& args,
               const std::string& host, const sim::EnvVars& env) {
  log_ = std::filesystem::temp_directory_path() /
         ("ibpulse-daemon-" + std::to_string(::getpid()) + "-" + std::to_string(g_logs++) + ".log");
  std::vector<std::string> command = {IBPULSE_BINARY_FOR_TESTS, "run"};
  command.insert(command.end(), args.begin(), args.end());
  process_ = fabric.start_client(command, log_, env, host);
}

Daemon::~Daemon() {
  sim::terminate(process_, 5s);
  std::filesystem::remove(log_);
}

std::string Daemon::log() const {
  return read_text_file(log_);
}

bool Daemon::wait_for(const std::string& text, std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (log().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

double Daemon::sweeps() const {
  const uint16_t port = web_port();
  if (port == 0) return -1;
  return metric_value(http_get(port, "/metrics/self"), "ibpulse_sweeps_total");
}

bool Daemon::wait_for_sweeps(int more, std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  double start = -1;
  while ((start = sweeps()) < 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(50ms);
  }
  while (sweeps() < start + more) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

bool Daemon::running() const {
  return sim::is_running(process_);
}

void Daemon::signal(int sig) const {
  ::kill(-process_.pid, sig);
}

std::string Daemon::stop() const {
  signal(SIGTERM);
  EXPECT_TRUE(wait_for("event=stopped", 5s)) << log();
  return log();
}

uint16_t Daemon::web_port() const {
  return listening_port("web_listening");
}

uint16_t Daemon::snmp_port() const {
  return listening_port("snmp_listening");
}

uint16_t Daemon::listening_port(const std::string& event) const {
  const std::regex re("event=" + event + " .* port=([0-9]+)");
  std::smatch m;
  const std::string text = log();
  if (!std::regex_search(text, m, re)) return 0;
  return static_cast<uint16_t>(std::stoul(m[1]));
}

uint16_t free_loopback_port(int socket_type) {
  const int fd = ::socket(AF_INET, socket_type | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

double metric_value(const std::string& metrics, const std::string& name,
                    const std::string& labels) {
  const std::string head = name + (labels.empty() ? "" : "{" + labels + "}") + " ";
  // At a line's start: a name that ends another one's must not match it.
  if (metrics.starts_with(head)) return std::stod(metrics.substr(head.size()));
  const size_t at = metrics.find("\n" + head);
  return at == std::string::npos ? -1 : std::stod(metrics.substr(at + 1 + head.size()));
}

std::string total_line(const SimFabric& fabric, const std::string& node, unsigned port,
                       const std::string& counter) {
  return "event=port_total node_guid=" + guid_text(fabric.port(node, port).node_guid) +
         " port=" + std::to_string(port) + " counter=" + counter + " total=";
}

uint64_t total_in(const std::string& log, const std::string& line) {
  const auto at = log.rfind(line);
  if (at == std::string::npos) return UINT64_MAX;
  return std::stoull(log.substr(at + line.size()));
}

uint64_t stopped_stat(const std::string& log, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(log, m, std::regex("event=stopped .* " + key + "=([0-9]+)"))) {
    ADD_FAILURE() << "no " << key << " on the event=stopped line";
    return 0;
  }
  return std::stoull(m[1]);
}

namespace {

// What a GET came back with: the body (kBody), an HTTP error status and the body it carried
// (kHttpError), or why no answer came (kFailed).
struct Fetched {
  enum Kind { kBody, kHttpError, kFailed } kind = kFailed;
  int code = 0;
  std::string text;
};

// GETs `url` with python3's urllib (a project dependency). The script writes a status line
// ("OK", "HTTP <code>" or "ERROR") and then the body or the error, so a body is never taken for
// a status.
Fetched fetch(const std::string& url, const std::vector<std::string>& params,
              const HttpAccess& access) {
  std::vector<std::string> argv = {
      "python3",
      "-c",
      "import sys, ssl, base64, urllib.request, urllib.parse, urllib.error\n"
      "url, ca, user, password = sys.argv[1:5]\n"
      "params = [tuple(a.split('=', 1)) for a in sys.argv[5:]]\n"
      "if params: url += '?' + urllib.parse.urlencode(params)\n"
      "req = urllib.request.Request(url)\n"
      "if user: req.add_header('Authorization', 'Basic ' + "
      "base64.b64encode((user + ':' + password).encode()).decode())\n"
      "ctx = ssl.create_default_context(cafile=ca) if ca else None\n"
      "try:\n"
      " sys.stdout.write('OK\\n' + urllib.request.urlopen(req, timeout=20, "
      "context=ctx).read().decode())\n"
      "except urllib.error.HTTPError as e:\n"
      " sys.stdout.write('HTTP %d\\n%s' % (e.code, e.read().decode()))\n"
      "except Exception as e:\n"
      " sys.stdout.write('ERROR\\n%s' % e)\n",
      url,
      access.ca_file,
      access.username,
      access.password};
  argv.insert(argv.end(), params.begin(), params.end());
  const auto run = sim::run_command(argv, {}, 30s);
  if (!run) return {Fetched::kFailed, 0, run.error()};
  const std::string& out = run->out;
  const auto eol = out.find('\n');
  if (eol == std::string::npos) {
    return {Fetched::kFailed, 0,
            "python3 exited " + std::to_string(run->exit_code) + ": " + run->err};
  }
  const std::string status = out.substr(0, eol);
  std::string text = out.substr(eol + 1);
  if (status == "OK") return {Fetched::kBody, 0, std::move(text)};
  if (status.starts_with("HTTP "))
    return {Fetched::kHttpError, std::stoi(status.substr(5)), std::move(text)};
  return {Fetched::kFailed, 0, std::move(text)};
}

}  // namespace

std::string http_get_url(const std::string& url, const std::vector<std::string>& params,
                         const HttpAccess& access) {
  Fetched got = fetch(url, params, access);
  switch (got.kind) {
    case Fetched::kBody:
      return std::move(got.text);
    case Fetched::kHttpError:
      return "HTTP " + std::to_string(got.code) + " " + got.text;
    case Fetched::kFailed:
      break;
  }
  return "ERROR " + got.text;
}

std::string http_get(uint16_t port, const std::string& path) {
  Fetched got = fetch("http://127.0.0.1:" + std::to_string(port) + path, {}, {});
  switch (got.kind) {
    case Fetched::kBody:
      return std::move(got.text);
    case Fetched::kHttpError:
      return "HTTP " + std::to_string(got.code) + "\n";
    case Fetched::kFailed:
      break;
  }
  return "ERROR " + got.text;
}

}  // namespace ibpulse::testing
