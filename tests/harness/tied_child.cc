#include "tied_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace ibpulse::testing {

namespace {

std::vector<char*> pointers(std::vector<std::string>& text) {
  std::vector<char*> out;
  out.reserve(text.size() + 1);
  for (std::string& s : text)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t spawn_tied_child(const std::string& path, const std::vector<std::string>& args,
                       const std::filesystem::path& log, const TiedChildOptions& options) {
  std::vector<std::string> arg_text = args;
  std::vector<std::string> env_text = options.env.value_or(std::vector<std::string>{});
  const std::vector<char*> argv = pointers(arg_text);
  const std::vector<char*> envp = pointers(env_text);
  const std::string log_path = log.string();
  const int flags = O_WRONLY | O_CREAT | (options.append_log ? O_APPEND : O_TRUNC);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the test died before the prctl took
    const int null = ::open("/dev/null", O_RDONLY);
    const int out = ::open(log_path.c_str(), flags, 0644);
    ::dup2(null, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    if (options.env) {
      ::execve(path.c_str(), argv.data(), envp.data());
    } else {
      ::execv(path.c_str(), argv.data());
    }
    ::_exit(127);
  }
  return pid;
}

void stop_child(pid_t pid, std::chrono::milliseconds grace) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + grace;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace ibpulse::testing
