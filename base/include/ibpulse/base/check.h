#pragma once
// Invariants, checked in every build.
//
// IBPULSE_CHECK(condition, "format", args...) stays in Release builds: a broken invariant on
// the counter path would otherwise put one port's counts on another or write past a buffer,
// and an exporter would serve the result as if it were true. It prints what failed, where, and
// the message to stderr (the daemon's log), then aborts: a core dump, and a restart by the
// service manager from the last saved state, never a wrong number.
//
// IBPULSE_DCHECK(condition) is compiled out with NDEBUG. Use it only on a hot path where a
// benchmark shows the check's cost, and name that benchmark in a comment next to it.
//
// Expected failures (bad input, a port that does not answer) are not invariants: they travel
// as Result values (result.h) and are counted.
//
// Thread safety: any thread.

#include <fmt/format.h>

#include <string_view>

namespace ibpulse::detail {
[[noreturn]] void check_failed(const char* condition, const char* file, int line,
                               std::string_view message = {});
}  // namespace ibpulse::detail

#define IBPULSE_CHECK(condition, ...)                                                     \
  do {                                                                                    \
    if (!(condition)) [[unlikely]] {                                                      \
      ::ibpulse::detail::check_failed(#condition, __FILE__,                               \
                                      __LINE__ __VA_OPT__(, ::fmt::format(__VA_ARGS__))); \
    }                                                                                     \
  } while (false)

#ifdef NDEBUG
#define IBPULSE_DCHECK(condition) \
  do {                            \
  } while (false && (condition))
#else
#define IBPULSE_DCHECK(condition) IBPULSE_CHECK(condition)
#endif
