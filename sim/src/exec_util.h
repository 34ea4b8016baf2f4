#pragma once
// Low-level pieces shared by the process helpers: argv/envp arrays that stay valid after fork,
// full reads and writes, and draining two pipes with a deadline.

#include <chrono>
#include <string>
#include <vector>

namespace ibpulse::sim {

// Builds everything execve needs before fork: the child must not allocate.
class ExecArgs {
 public:
  ExecArgs(const std::vector<std::string>& argv, std::vector<std::string> env);
  const char* path() const { return path_.c_str(); }
  char* const* argv() { return argv_ptrs_.data(); }
  char* const* envp() { return env_ptrs_.data(); }

 private:
  std::string path_;
  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  std::vector<char*> argv_ptrs_;
  std::vector<char*> env_ptrs_;
};

bool write_all(int fd, const void* data, size_t size);
bool read_all(int fd, void* data, size_t size);

// Writes errno to `fd` and exits the child with 127.
[[noreturn]] void exec_failed(int fd);

// Reads both pipes until EOF; false if `timeout` passed first.
bool drain(int out_fd, int err_fd, std::string& out, std::string& err,
           std::chrono::milliseconds timeout);

}  // namespace ibpulse::sim
