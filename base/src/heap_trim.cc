#include "ibpulse/base/heap_trim.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ibpulse {

bool HeapTrim::note(size_t bytes) {
  observe(bytes);
  if (!due(bytes)) return false;
  peak_ = bytes;
  trim_heap();
  return true;
}

bool trim_heap() {
#if defined(__GLIBC__)
  return malloc_trim(0) != 0;
#else
  return false;
#endif
}

}  // namespace ibpulse
