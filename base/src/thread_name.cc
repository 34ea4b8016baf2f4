#include "ibpulse/base/thread_name.h"

#include <pthread.h>

namespace ibpulse {

void name_this_thread(const std::string& name) {
  // A failure (a name too long is cut first) only leaves the inherited name: nothing to do.
  (void)pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace ibpulse
