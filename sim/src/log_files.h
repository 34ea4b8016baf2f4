#pragma once
// Reading the logs the fabric's daemons write: whole, their last lines, or waiting for a line
// that says a daemon is ready.

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"
#include "ibpulse/sim/process.h"

namespace ibpulse::sim {

// The whole file; empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// Its last `lines` lines.
std::string tail(const std::filesystem::path& path, size_t lines);

// Waits for `text` to appear in a log written by `process`; fails when the process exits first.
Status wait_for_log(const std::filesystem::path& log, std::string_view text,
                    const ProcessRef& process, std::string_view what,
                    std::chrono::milliseconds timeout);

}  // namespace ibpulse::sim
