#include "snmptrapd.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tied_child.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string strip_dot(std::string s) {
  if (!s.empty() && s.front() == '.') s.erase(0, 1);
  return s;
}

// `"a \"b\""` -> `a "b"`.
std::string unquote(const std::string& s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return s;
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\' && i + 2 < s.size()) ++i;
    out += s[i];
  }
  return out;
}

// ".1.3.6.1.2.1.1.3.0 = Timeticks: (123) 0:00:01.23", ".1.3... = STRING: \"x\"", ...
TrapVarBind parse_varbind(const std::string& line) {
  TrapVarBind vb;
  const size_t eq = line.find(" = ");
  vb.oid = strip_dot(line.substr(0, eq));
  if (eq == std::string::npos) return vb;
  std::string rest = line.substr(eq + 3);
  const size_t colon = rest.find(": ");
  if (colon != std::string::npos && rest.find(' ') > colon) {
    vb.type = rest.substr(0, colon);
    rest = rest.substr(colon + 2);
  } else if (rest.ends_with(":")) {  // an empty value: `STRING: `, trimmed by the line
    vb.type = rest.substr(0, rest.size() - 1);
    rest.clear();
  }
  if (vb.type == "STRING") {
    vb.value = unquote(rest);
  } else if (vb.type == "OID") {
    vb.value = strip_dot(rest);
  } else if (vb.type == "Timeticks" && rest.starts_with("(")) {
    vb.value = rest.substr(1, rest.find(')') - 1);
  } else {
    vb.value = rest;
  }
  return vb;
}

// Between "BEGIN <security>" and "END" lines, a varbind per line (the format2 line).
std::vector<TrapNotification> parse_output(const std::string& out) {
  std::vector<TrapNotification> all;
  std::istringstream in(out);
  TrapNotification current;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("BEGIN ")) {
      current = TrapNotification{};
      current.security = line.substr(6);
      inside = true;
    } else if (inside && line == "END") {
      if (const TrapVarBind* t = current.find("1.3.6.1.6.3.1.1.4.1.0")) current.trap_oid = t->value;
      all.push_back(std::exchange(current, TrapNotification{}));
      inside = false;
    } else if (inside && line.starts_with(".")) {
      current.varbinds.push_back(parse_varbind(line));
    }
  }
  return all;
}

}  // namespace

const TrapVarBind* TrapNotification::find(const std::string& oid) const {
  for (const TrapVarBind& vb : varbinds) {
    if (vb.oid == oid) return &vb;
  }
  return nullptr;
}

std::string TrapNotification::value_of(const std::string& oid) const {
  const TrapVarBind* vb = find(oid);
  if (!vb) return "absent";
  std::string v = vb->type + " " + vb->value;
  while (!v.empty() && v.back() == ' ')
    v.pop_back();
  return v;
}

uint16_t Snmptrapd::free_port() {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  uint16_t port = 0;  // 0 when the socket cannot be bound, as getsockname reports then
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::unique_ptr<Snmptrapd> Snmptrapd::start(const std::vector<TrapdUser>& users, uint16_t port) {
  static std::atomic<int> serial{0};
  std::unique_ptr<Snmptrapd> d(new Snmptrapd());
  d->port_ = port != 0 ? port : free_port();
  d->dir_ = std::filesystem::temp_directory_path() /
            fmt::format("ibpulse-snmptrapd-{}-{}", getpid(), serial++);
  std::filesystem::remove_all(d->dir_);
  std::filesystem::create_directories(d->dir_ / "persist");
  {
    std::ofstream conf(d->dir_ / "snmptrapd.conf");
    conf << "[snmp] persistentDir " << (d->dir_ / "persist").string() << "\n"
         << "snmpTrapdAddr udp:127.0.0.1:" << d->port_ << "\n"
         << "disableAuthorization yes\n"
         << "format2 BEGIN %P\\n%V\\n%v\\nEND\\n\n";
    for (const TrapdUser& u : users) {
      conf << "createUser " << (u.engine_id.empty() ? "" : "-e " + u.engine_id + " ") << u.name
           << " " << u.auth_protocol << " \"" << u.auth_password << "\" " << u.priv_protocol
           << " \"" << (u.priv_password.empty() ? u.auth_password : u.priv_password) << "\"\n";
    }
  }
  const std::string out = (d->dir_ / "out.txt").string();
  const std::string conf = (d->dir_ / "snmptrapd.conf").string();
  const std::string pidfile = (d->dir_ / "pid").string();
  // It dies with the test, even one that crashed (tied_child.h).
  std::vector<std::string> env_text = {
      "MIBS=", "SNMP_PERSISTENT_DIR=" + (d->dir_ / "persist").string(),
      "SNMPCONFPATH=" + d->dir_.string()};
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!entry.starts_with("MIBS=") && !entry.starts_with("SNMP_PERSISTENT_DIR=") &&
        !entry.starts_with("SNMPCONFPATH=")) {
      env_text.emplace_back(entry);
    }
  }
  const std::vector<std::string> args = {"snmptrapd", "-f",  "-Lo", "-C",   "-c",
                                         conf,        "-On", "-p",  pidfile};
  const pid_t pid = spawn_tied_child("/usr/sbin/snmptrapd", args, out, {.env = env_text});
  d->pid_ = pid;
  // It prints its version once it listens.
  for (int i = 0; i < 500; ++i) {
    if (read_file(out).find("NET-SNMP version") != std::string::npos) return d;
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      d->pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "snmptrapd did not start on port " << d->port_ << ":\n" << read_file(out);
  return nullptr;
}

Snmptrapd::~Snmptrapd() {
  stop_child(pid_, std::chrono::seconds(5));
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string Snmptrapd::output() const {
  return read_file(dir_ / "out.txt");
}

std::vector<TrapNotification> Snmptrapd::notifications() {
  std::vector<TrapNotification> now = parse_output(output());
  const auto at = std::chrono::steady_clock::now();
  for (size_t i = 0; i < now.size(); ++i)
    now[i].seen = i < seen_.size() ? seen_[i].seen : at;
  seen_ = now;
  return now;
}

std::vector<TrapNotification> Snmptrapd::wait_for(size_t n, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::vector<TrapNotification> got = notifications();
  while (got.size() < n && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(5ms);
    got = notifications();
  }
  return got;
}

}  // namespace ibpulse::testing
