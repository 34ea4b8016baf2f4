#include "exec_util.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "ibpulse/sim/process.h"

namespace ibpulse::sim {

ExecArgs::ExecArgs(const std::vector<std::string>& argv, std::vector<std::string> env)
    : argv_(argv), env_(std::move(env)) {
  auto found = find_program(argv_.front());
  path_ = found ? found->string() : argv_.front();
  for (auto& a : argv_)
    argv_ptrs_.push_back(a.data());
  argv_ptrs_.push_back(nullptr);
  for (auto& e : env_)
    env_ptrs_.push_back(e.data());
  env_ptrs_.push_back(nullptr);
}

bool write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void exec_failed(int fd) {
  const int e = errno;
  write_all(fd, &e, sizeof e);
  ::_exit(127);
}

bool drain(int out_fd, int err_fd, std::string& out, std::string& err,
           std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  return open == 0;
}

}  // namespace ibpulse::sim
