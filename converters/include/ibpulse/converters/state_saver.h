#pragma once
// The daemon's side of the state file (converters/state_file.h): where it is, loading it at
// the first discovery, saving it on an interval without stalling the converter (the converter
// thread encodes, a writer thread writes and fsyncs), and a last save at stop.
//
// Thread safety: one thread (the converter's) calls everything.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "ibpulse/converters/converter.h"

namespace ibpulse::converters {

class StateSaver {
 public:
  // `dir` empty: no state file (persistence off, or no directory known).
  StateSaver(const std::filesystem::path& dir, std::chrono::milliseconds interval);
  ~StateSaver();
  StateSaver(const StateSaver&) = delete;
  StateSaver& operator=(const StateSaver&) = delete;

  // Before the converter's first topology: restores what the file holds, if it can be
  // trusted; a file that cannot is set aside and reported. Saving starts only after this.
  void load(const collector::Topology& topology, Converter& converter);

  // Saves in the background when the interval has passed.
  void maybe_save(const Converter& converter, uint64_t subnet_prefix,
                  std::chrono::steady_clock::time_point now);
  // Brings the next save forward to within a second (after our own clears).
  void save_soon(std::chrono::steady_clock::time_point now);
  // Saves and waits (at stop).
  void save_now(const Converter& converter, uint64_t subnet_prefix);

  // Whether a state file is kept (loaded, and the directory is ours).
  bool saving() const { return saving_; }
  // Starts writing the state as it is now, unless a write is under way (then nothing: ask
  // again later). Returns the save's number; finished_through() reaches it once the file is on
  // disk, fsynced, or the write failed (logged).
  std::optional<uint64_t> start_save(const Converter& converter, uint64_t subnet_prefix);
  uint64_t finished_through() const { return finished_.load(std::memory_order_acquire); }

  const std::filesystem::path& path() const { return path_; }

 private:
  void wait_for_writer();
  bool writing() const { return finished_through() < started_; }
  void write_in_background(std::string bytes, size_t ports);

  std::filesystem::path path_;
  std::chrono::milliseconds interval_;
  bool loaded_ = false;
  bool saving_ = false;  // false until loaded, or when the file must not be overwritten
  std::chrono::steady_clock::time_point next_save_{};
  std::thread writer_;
  uint64_t started_ = 0;               // saves started, numbered from 1
  std::atomic<uint64_t> finished_{0};  // the last save written (or failed), by the writer
  int lock_fd_ = -1;  // flock held on <dir>/counters.lock while we own the directory
};

}  // namespace ibpulse::converters
