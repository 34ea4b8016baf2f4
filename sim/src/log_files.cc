#include "log_files.h"

#include <fstream>
#include <iterator>
#include <thread>

namespace ibpulse::sim {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tail(const std::filesystem::path& path, size_t lines) {
  std::string text = read_text(path);
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos > 0; ++n) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
  }
  return text.substr(pos + 1);
}

Status wait_for_log(const std::filesystem::path& log, std::string_view text,
                    const ProcessRef& process, std::string_view what,
                    std::chrono::milliseconds timeout) {
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_text(log).find(text) == std::string::npos) {
    if (!is_running(process)) return Err("{} exited while starting", what);
    if (std::chrono::steady_clock::now() > deadline) {
      return Err("{} not ready after {} ms", what, timeout.count());
    }
    std::this_thread::sleep_for(20ms);
  }
  return Ok{};
}

}  // namespace ibpulse::sim
