#include "ibpulse/converters/state_saver.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ibpulse/base/atomic_file.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/converters/state_file.h"

namespace ibpulse::converters {
namespace {

using Clock = std::chrono::steady_clock;

// After our own clear the hardware counter restarts from 0: until a save records the new
// baseline, a crash would take the lower reading for a foreign clear and lose the counts
// between the last save and the clear.
constexpr auto kSoon = std::chrono::seconds(1);

void write_and_log(const std::filesystem::path& path, const std::string& bytes, size_t ports,
                   bool at_stop) {
  const auto start = Clock::now();
  if (auto s = write_file_atomically(path, bytes); !s) {
    spdlog::error("event=state_save_failed path=\"{}\" error=\"{}\"", log_text(path.string()),
                  log_text(s.error()));
    return;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  spdlog::log(at_stop ? spdlog::level::info : spdlog::level::debug,
              "event=state_saved path=\"{}\" ports={} bytes={} write_seconds={:.3f}",
              log_text(path.string()), ports, bytes.size(), seconds);
}

}  // namespace

StateSaver::StateSaver(const std::filesystem::path& dir, std::chrono::milliseconds interval)
    : interval_(interval) {
  if (dir.empty() || interval.count() == 0) {
    spdlog::info("event=state_off note=\"{}\"",
                 log_text(interval.count() == 0
                              ? "state.save-interval is off"
                              : "no state.dir and no default directory (a simulated fabric without "
                                "IBPULSE_SIM_RUN_DIR, or HOME unset)"));
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    spdlog::error("event=state_off path=\"{}\" error=\"cannot create the directory: {}\"",
                  log_text(dir.string()), ec.message());
    return;
  }
  // One daemon per state file: a second one (another fabric, a second `ibpulse run`) would
  // refuse the first one's file at each start and both would write the same temporary file.
  const auto lock = dir / "counters.lock";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    spdlog::error(
        "event=state_off path=\"{}\" error=\"{}\" note=\"another ibpulse uses this state "
        "directory: give each instance its own --state.dir\"",
        log_text(lock.string()), log_text(std::strerror(errno)));
    return;
  }
  path_ = dir / "counters.state";
}

StateSaver::~StateSaver() {
  wait_for_writer();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

void StateSaver::wait_for_writer() {
  if (writer_.joinable()) writer_.join();
}

void StateSaver::load(const collector::Topology& topology, Converter& converter) {
  if (loaded_ || path_.empty()) return;
  loaded_ = true;
  auto file = read_whole_file(path_);
  if (!file) {
    // Not overwritten: a file we could not read may still hold what an operator needs.
    spdlog::error("event=state_load_failed path=\"{}\" error=\"{}\" note=\"not saving either\"",
                  log_text(path_.string()), log_text(file.error()));
    return;
  }
  saving_ = true;
  if (!file->found) {
    spdlog::info("event=state_absent path=\"{}\" note=\"counters start from the raw readings\"",
                 log_text(path_.string()));
    return;
  }
  const auto loaded = apply_state(file->bytes, topology, converter);
  if (loaded && !loaded->counters_refused.empty()) {
    spdlog::warn(
        "event=state_partly_loaded path=\"{}\" reason=\"{}\" if_indexes={} note=\"ifIndex "
        "numbers kept; counters start from the raw readings\"",
        log_text(path_.string()), log_text(loaded->counters_refused), loaded->if_indexes);
    return;
  }
  if (loaded) {
    spdlog::info(
        "event=state_loaded path=\"{}\" ports={} in_topology={} if_indexes={} "
        "if_indexes_dropped={} counters_unknown={} saved_unix_seconds={}",
        log_text(path_.string()), loaded->ports, loaded->ports_in_topology, loaded->if_indexes,
        loaded->if_indexes_dropped, loaded->counters_unknown, loaded->saved_unix_seconds);
    return;
  }
  const auto aside = set_aside(path_);
  if (!aside) {
    saving_ = false;
    spdlog::error(
        "event=state_rejected path=\"{}\" reason=\"{}\" error=\"{}\" note=\"not saving, so the "
        "file stays for inspection\"",
        log_text(path_.string()), log_text(loaded.error()), log_text(aside.error()));
    return;
  }
  spdlog::warn(
      "event=state_rejected path=\"{}\" reason=\"{}\" set_aside=\"{}\" note=\"counters start from "
      "the raw readings\"",
      log_text(path_.string()), log_text(loaded.error()), log_text(aside->string()));
}

void StateSaver::maybe_save(const Converter& converter, uint64_t subnet_prefix,
                            Clock::time_point now) {
  if (!saving_) return;
  if (next_save_ == Clock::time_point{}) next_save_ = now + interval_;
  if (now < next_save_) return;
  next_save_ = now + interval_;
  wait_for_writer();  // one write at a time; an interval is far longer than a write
  write_in_background(encode_state(converter, subnet_prefix), converter.port_count());
}

std::optional<uint64_t> StateSaver::start_save(const Converter& converter, uint64_t subnet_prefix) {
  if (!saving_ || writing()) return std::nullopt;
  wait_for_writer();  // finished: joins at once
  write_in_background(encode_state(converter, subnet_prefix), converter.port_count());
  return started_;
}

void StateSaver::write_in_background(std::string bytes, size_t ports) {
  const uint64_t number = ++started_;
  writer_ = std::thread([this, path = path_, bytes = std::move(bytes), ports, number] {
    write_and_log(path, bytes, ports, false);
    finished_.store(number, std::memory_order_release);
  });
}

void StateSaver::save_soon(Clock::time_point now) {
  if (!saving_) return;
  if (next_save_ == Clock::time_point{} || next_save_ > now + kSoon) next_save_ = now + kSoon;
}

void StateSaver::save_now(const Converter& converter, uint64_t subnet_prefix) {
  if (!saving_) return;
  wait_for_writer();
  write_and_log(path_, encode_state(converter, subnet_prefix), converter.port_count(), true);
  // The last save: the directory is free for the next daemon now, not only at our exit.
  saving_ = false;
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

}  // namespace ibpulse::converters
