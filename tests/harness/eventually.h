#pragma once
// Waiting for an event a test can only observe by looking again (a value in a TSDB, a
// self-metric): polls `done` every 250 ms until it holds or `timeout` passes. Never a fixed
// sleep in place of the event.
//
// Thread safety: calls `done` on the calling thread only.

#include <chrono>
#include <thread>

namespace ibpulse::testing {

template <typename Done>
bool eventually(Done done, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return true;
}

}  // namespace ibpulse::testing
