#include "ibpulse/base/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ibpulse {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

// Writes every byte, retrying interrupted and short writes.
bool write_all(int fd, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

// Renames `from` over `to`; the rename itself is durable only once the directory is.
Status rename_durably(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    return Err("cannot rename {} to {}: {}", from.string(), to.string(), errno_text());
  const std::filesystem::path dir = to.has_parent_path() ? to.parent_path() : ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

}  // namespace

Status write_file_atomically(const std::filesystem::path& path, const std::string& bytes) {
  const std::filesystem::path temporary =
      fmt::format("{}.tmp{}-{}", path.string(), ::getpid(), ::syscall(SYS_gettid));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Err("cannot create {}: {}", temporary.string(), errno_text());
  if (!write_all(fd, bytes)) {
    const std::string why = errno_text();
    ::close(fd);
    ::unlink(temporary.c_str());
    return Err("cannot write {}: {}", temporary.string(), why);
  }
  const bool synced = ::fsync(fd) == 0;
  const std::string sync_error = synced ? "" : errno_text();
  if (::close(fd) != 0 || !synced) {
    const std::string why = synced ? errno_text() : sync_error;
    ::unlink(temporary.c_str());
    return Err("cannot flush {}: {}", temporary.string(), why);
  }
  Status renamed = rename_durably(temporary, path);
  if (!renamed) ::unlink(temporary.c_str());
  return renamed;
}

Status replace_file_durably(const std::filesystem::path& written,
                            const std::filesystem::path& path) {
  const int fd = ::open(written.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Err("cannot open {}: {}", written.string(), errno_text());
  const bool synced = ::fsync(fd) == 0;
  const std::string why = synced ? "" : errno_text();
  ::close(fd);
  if (!synced) return Err("cannot flush {}: {}", written.string(), why);
  return rename_durably(written, path);
}

}  // namespace ibpulse
