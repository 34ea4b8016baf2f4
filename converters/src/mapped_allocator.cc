#include "ibpulse/converters/mapped_allocator.h"

#include <sys/mman.h>

#include <new>

namespace ibpulse::converters::detail {

void* map_block(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without it, plain pages
  return p;
}

void unmap_block(void* p, size_t bytes) {
  munmap(p, bytes);
}

}  // namespace ibpulse::converters::detail
