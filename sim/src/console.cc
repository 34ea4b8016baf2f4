#include "ibpulse/sim/console.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "exec_util.h"
#include "ibpulse/base/lines.h"

namespace ibpulse::sim {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kPrompt = "sim> ";
constexpr std::string_view kSyncPrefix = "# ibpulse-sync ";
// The log only needs to hold the reply being waited for; it is cut back once it passes this.
constexpr uintmax_t kLogTruncateBytes = 4u << 20;

class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) {
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

std::string new_token() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t seed = std::random_device{}();
  return fmt::format("{}-{:x}-{}", ::getpid(), seed & 0xffffff, counter++);
}

uintmax_t file_size_or_zero(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

std::string read_from(const std::filesystem::path& path, uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool is_rejection(std::string_view line) {
  if (line.find("unknown - skipped") != std::string_view::npos) return true;
  if (line.starts_with("bad params") || line.starts_with("bad lid value") ||
      line.starts_with("to/from lid unconfigured") || line.starts_with("wait: bad param")) {
    return true;
  }
  // ibsim prefixes its error messages with "# "; Dump's own comment lines are not errors.
  return line.starts_with("# ") && !line.starts_with("# Net status") &&
         !line.starts_with("#  dumped") && !line.starts_with(kSyncPrefix);
}

}  // namespace

std::string strip_prompts(std::string_view reply) {
  std::string out;
  out.reserve(reply.size());
  size_t pos = 0;
  while (pos < reply.size()) {
    if (reply.compare(pos, kPrompt.size(), kPrompt) == 0) {
      // A prompt ends whatever line the previous reply left open.
      if (!out.empty() && out.back() != '\n') out.push_back('\n');
      pos += kPrompt.size();
      continue;
    }
    out.push_back(reply[pos++]);
  }
  return out;
}

std::optional<std::string> find_rejection(std::string_view reply) {
  while (!reply.empty()) {
    const auto line = take_line(reply);
    if (is_rejection(line)) return std::string(line);
  }
  return std::nullopt;
}

Result<std::string> Console::send(const std::string& line,
                                  std::chrono::milliseconds timeout) const {
  return send(std::span<const std::string>(&line, 1), timeout);
}

Result<std::string> Console::send(std::span<const std::string> lines,
                                  std::chrono::milliseconds timeout) const {
  for (const auto& l : lines) {
    if (l.find('\n') != std::string::npos) return Err("a console line cannot contain a newline");
    // ibsim echoes comment lines through printf: a '%' there would be read as a format.
    if (l.find_first_not_of(" \t") != std::string::npos && l[l.find_first_not_of(" \t")] == '#' &&
        l.find('%') != std::string::npos) {
      return Err("a console comment cannot contain '%'");
    }
  }
  FileLock lock(paths_.lock);
  if (!lock.ok()) return Err("cannot lock {}: {}", paths_.lock.string(), std::strerror(errno));

  // O_NONBLOCK makes open fail (ENXIO) instead of hanging when no ibsim reads the fifo.
  const int fd = ::open(paths_.fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return Err("ibsim is not reading its console {}: {}", paths_.fifo.string(),
               std::strerror(errno));
  ::fcntl(fd, F_SETFL, 0);  // blocking writes: ibsim drains the fifo as it goes

  const uintmax_t offset = file_size_or_zero(paths_.log);
  const std::string marker = std::string(kSyncPrefix) + new_token();
  std::string batch;
  for (const auto& l : lines)
    batch += l + "\n";
  batch += marker + "\n";
  const bool written = write_all(fd, batch.data(), batch.size());
  ::close(fd);
  if (!written) return Err("writing to ibsim's console failed: {}", std::strerror(errno));

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = 1ms;
  while (true) {
    std::string reply = read_from(paths_.log, offset);
    if (const auto at = reply.find(marker); at != std::string::npos) {
      reply.resize(at);
      if (file_size_or_zero(paths_.log) > kLogTruncateBytes) {
        std::filesystem::resize_file(paths_.log, 0);
      }
      std::string text = strip_prompts(reply);
      if (auto rejected = find_rejection(text)) return Err("ibsim: {}", *rejected);
      return text;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Err("ibsim did not act on its console within {} ms", timeout.count());
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace ibpulse::sim
