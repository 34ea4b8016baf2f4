// The state file's I/O: a whole-file read, and setting aside a file that cannot be trusted
// (writes: base/atomic_file.h).
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

Result<FileContents> read_whole_file(const std::filesystem::path& path) {
  FileContents out;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return out;
  if (ec) return Err("cannot look at {}: {}", path.string(), ec.message());
  if (status.type() != std::filesystem::file_type::regular) {
    return Err("{} is not a regular file", path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Err("cannot open {}: {}", path.string(), errno_text());
  try {
    // libstdc++'s filebuf throws on a read error (EIO, EISDIR) even without exceptions().
    out.bytes.assign(std::istreambuf_iterator<char>(in), {});
  } catch (const std::exception& e) {
    return Err("cannot read {}: {}", path.string(), e.what());
  }
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
