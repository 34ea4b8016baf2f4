#include "ibpulse/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace ibpulse::detail {

void check_failed(const char* condition, const char* file, int line, std::string_view message) {
  // stdio, not the logger: this may run in any state, the logger's included.
  std::fprintf(stderr, "ibpulse: internal error: check '%s' failed at %s:%d%s%.*s\n", condition,
               file, line, message.empty() ? "" : ": ", static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace ibpulse::detail
