#include "ibpulse/sim/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "exec_util.h"

namespace ibpulse::sim {

using namespace std::chrono_literals;

std::optional<uint64_t> process_start_time(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields restart after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string state;
  fields >> state;
  if (state == "Z" || state == "X") return std::nullopt;
  std::string skip;
  for (int field = 4; field < 22; ++field)
    fields >> skip;  // fields 4..21
  uint64_t start = 0;
  if (!(fields >> start)) return std::nullopt;
  return start;
}

std::optional<ProcessRef> process_ref(pid_t pid) {
  auto start = process_start_time(pid);
  if (!start) return std::nullopt;
  return ProcessRef{pid, *start};
}

bool is_running(const ProcessRef& process) {
  auto start = process_start_time(process.pid);
  return start && *start == process.start_time;
}

bool terminate(const ProcessRef& process, std::chrono::milliseconds grace) {
  if (!is_running(process)) return true;
  const bool leads_group = getpgid(process.pid) == process.pid;
  const auto signal_it = [&](int sig) {
    if (leads_group) ::kill(-process.pid, sig);
    ::kill(process.pid, sig);
  };
  signal_it(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    // Our own children must be reaped before /proc shows them gone.
    ::waitpid(process.pid, nullptr, WNOHANG);
    if (!is_running(process)) return true;
    std::this_thread::sleep_for(10ms);
  }
  signal_it(SIGKILL);
  for (int i = 0; i < 200 && is_running(process); ++i) {
    ::waitpid(process.pid, nullptr, WNOHANG);
    std::this_thread::sleep_for(10ms);
  }
  return !is_running(process);
}

std::vector<std::string> merged_environment(const EnvVars& env) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : env)
      replaced = replaced || k == key;
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [k, v] : env)
    out.push_back(k + "=" + v);
  return out;
}

Result<ProcessRef> spawn_detached(const SpawnSpec& spec) {
  if (spec.argv.empty()) return Err("nothing to run");
  ExecArgs args(spec.argv, merged_environment(spec.env));
  // Two pipes, one writer each: the grandchild may fail its exec before the child it forked
  // from has written the pid, so one shared pipe could deliver the errno first.
  int pid_pipe[2];    // the grandchild's pid, from the child
  int errno_pipe[2];  // errno if exec failed, from the grandchild (EOF on success: CLOEXEC)
  if (::pipe2(pid_pipe, O_CLOEXEC) != 0) return Err("pipe: {}", std::strerror(errno));
  if (::pipe2(errno_pipe, O_CLOEXEC) != 0) {
    ::close(pid_pipe[0]);
    ::close(pid_pipe[1]);
    return Err("pipe: {}", std::strerror(errno));
  }
  const pid_t child = ::fork();
  if (child < 0) return Err("fork: {}", std::strerror(errno));
  if (child == 0) {
    ::close(pid_pipe[0]);
    ::close(errno_pipe[0]);
    const pid_t grandchild = ::fork();
    if (grandchild != 0) {
      write_all(pid_pipe[1], &grandchild, sizeof grandchild);
      ::_exit(0);
    }
    // Its own session and process group: `terminate` stops the daemon with its helpers, and
    // no terminal signal (Ctrl-C in the shell that ran `sim up`) reaches it.
    ::setsid();
    const int in = ::open(spec.stdin_path.c_str(), spec.stdin_read_write ? O_RDWR : O_RDONLY);
    const int out = ::open(spec.stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int err = ::open(spec.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0 || err < 0) exec_failed(errno_pipe[1]);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(args.path(), args.argv(), args.envp());
    exec_failed(errno_pipe[1]);
  }
  ::close(pid_pipe[1]);
  ::close(errno_pipe[1]);
  ::waitpid(child, nullptr, 0);
  pid_t pid = 0;
  int exec_errno = 0;
  const bool got_pid = read_all(pid_pipe[0], &pid, sizeof pid);
  const bool failed = read_all(errno_pipe[0], &exec_errno, sizeof exec_errno);
  ::close(pid_pipe[0]);
  ::close(errno_pipe[0]);
  if (!got_pid) return Err("could not start {}", spec.argv[0]);
  if (failed) return Err("cannot run {}: {}", spec.argv[0], std::strerror(exec_errno));
  // The process exists from fork on; its start time is fixed then.
  auto ref = process_ref(pid);
  if (!ref) return Err("{} exited at once", spec.argv[0]);
  return *ref;
}

Result<CommandOutput> run_command(const std::vector<std::string>& argv, const EnvVars& env,
                                  std::chrono::milliseconds timeout) {
  if (argv.empty()) return Err("nothing to run");
  ExecArgs args(argv, merged_environment(env));
  int out[2];
  int err[2];
  int report[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      ::pipe2(report, O_CLOEXEC) != 0) {
    return Err("pipe: {}", std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) return Err("fork: {}", std::strerror(errno));
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execve(args.path(), args.argv(), args.envp());
    exec_failed(report[1]);
  }
  ::close(out[1]);
  ::close(err[1]);
  ::close(report[1]);
  int exec_errno = 0;
  const bool failed = read_all(report[0], &exec_errno, sizeof exec_errno);
  ::close(report[0]);

  CommandOutput result;
  const bool finished = drain(out[0], err[0], result.out, result.err, timeout);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (failed) return Err("cannot run {}: {}", argv[0], std::strerror(exec_errno));
  if (!finished) return Err("{} did not finish within {} ms", argv[0], timeout.count());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

Status replace_process(const std::vector<std::string>& argv, const EnvVars& env) {
  if (argv.empty()) return Err("nothing to run");
  ExecArgs args(argv, merged_environment(env));
  ::execve(args.path(), args.argv(), args.envp());
  return Err("cannot run {}: {}", argv[0], std::strerror(errno));
}

std::optional<std::filesystem::path> find_program(std::string_view name) {
  if (name.find('/') != std::string_view::npos) {
    if (::access(std::string(name).c_str(), X_OK) == 0) return std::filesystem::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::filesystem::path candidate =
        std::filesystem::path(dirs.substr(0, colon)) / std::string(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs.remove_prefix(colon == std::string_view::npos ? dirs.size() : colon + 1);
  }
  return std::nullopt;
}

std::filesystem::path self_executable() {
  return std::filesystem::read_symlink("/proc/self/exe");
}

}  // namespace ibpulse::sim
