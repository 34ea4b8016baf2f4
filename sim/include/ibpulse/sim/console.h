#pragma once
// ibsim's console, driven through the fifo its stdin is attached to. ibsim answers on its
// stdout (a log file in the fabric's run directory) and says nothing when a line is done, so
// each batch ends with a comment line carrying a unique token, which ibsim echoes once it has
// acted on everything before it.
//
// Thread safety: a Console may be used from one thread at a time. Any number of processes may
// use the same fabric's console: each batch holds an exclusive lock on the fabric's lock file.

#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::sim {

struct ConsolePaths {
  std::filesystem::path fifo;  // ibsim's stdin
  std::filesystem::path log;   // ibsim's stdout (opened O_APPEND, so it may be truncated)
  std::filesystem::path lock;
};

class Console {
 public:
  explicit Console(ConsolePaths paths) : paths_(std::move(paths)) {}

  // Sends the lines and returns ibsim's replies to them once it has acted on all of them.
  // Fails when ibsim is gone, does not answer within `timeout`, or rejects a line (the error
  // carries ibsim's own message).
  Result<std::string> send(std::span<const std::string> lines,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  Result<std::string> send(const std::string& line,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;

 private:
  ConsolePaths paths_;
};

// ibsim's replies with prompts removed, one line per line.
std::string strip_prompts(std::string_view reply);

// The first line of a reply that reports a rejected command ("# field X cannot be found in
// attribute Y", "command 'foo' unknown - skipped", ...), if any.
std::optional<std::string> find_rejection(std::string_view reply);

}  // namespace ibpulse::sim
