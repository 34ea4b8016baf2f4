// The state file's I/O: an atomic replace (write, fsync, rename, fsync of the directory), a
// whole-file read, and setting aside a file that cannot be trusted.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "ibpulse/converters/state_file.h"

namespace ibpulse::converters {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

Status write_file_atomically(const std::filesystem::path& path, const std::string& bytes) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Err("cannot create {}: {}", temporary.string(), errno_text());
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = errno_text();
      ::close(fd);
      ::unlink(temporary.c_str());
      return Err("cannot write {}: {}", temporary.string(), why);
    }
    written += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const std::string sync_error = synced ? "" : errno_text();
  if (::close(fd) != 0 || !synced) {
    const std::string why = synced ? errno_text() : sync_error;
    ::unlink(temporary.c_str());
    return Err("cannot flush {}: {}", temporary.string(), why);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temporary.c_str());
    return Err("cannot rename {} to {}: {}", temporary.string(), path.string(), why);
  }
  // The rename itself is durable only once the directory is.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

Result<FileContents> read_whole_file(const std::filesystem::path& path) {
  FileContents out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Err("cannot open {}: {}", path.string(), errno_text());
  out.bytes.assign(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) return Err("cannot read {}", path.string());
  out.found = true;
  return out;
}

Result<std::filesystem::path> set_aside(const std::filesystem::path& path) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::filesystem::path target = path.string() + ".rejected-" + std::to_string(now);
  std::error_code ec;
  std::filesystem::rename(path, target, ec);
  if (ec) return Err("cannot rename {} to {}: {}", path.string(), target.string(), ec.message());
  return target;
}

}  // namespace ibpulse::converters
