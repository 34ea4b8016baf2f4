#include "ibpulse/base/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ibpulse {

bool lower_this_thread_priority(int nice) {
  // On Linux, PRIO_PROCESS with a thread id sets that thread's nice value alone.
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  return ::setpriority(PRIO_PROCESS, tid, nice) == 0;
}

}  // namespace ibpulse
