#pragma once
// A helper process a test starts (Prometheus, VictoriaMetrics, snmptrapd): tied to the test
// process with PR_SET_PDEATHSIG, so a crashed test binary leaves nothing running, and stopped
// with SIGTERM, then SIGKILL after a grace period.
//
// Thread safety: call from the test's thread. The child only opens, dups and execs between
// fork and exec (everything it needs is built before the fork), so a threaded test is safe.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibpulse::testing {

struct TiedChildOptions {
  bool append_log = false;  // append to the log instead of truncating it (a restarted server)
  std::optional<std::vector<std::string>> env{};  // "NAME=value" entries; none: this process's
};

// Runs `path` with `args` (args[0] included), standard input from /dev/null, standard output
// and error into `log`. Returns the child's pid, or -1 when fork failed.
pid_t spawn_tied_child(const std::string& path, const std::vector<std::string>& args,
                       const std::filesystem::path& log, const TiedChildOptions& options = {});

// SIGTERM, SIGKILL once `grace` passed, and the child reaped. Nothing for pid <= 0.
void stop_child(pid_t pid, std::chrono::milliseconds grace);

}  // namespace ibpulse::testing
