#include "ibpulse/converters/mapped_allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <new>

namespace ibpulse::converters::detail {
namespace {
std::atomic<size_t> mapped{0};
}  // namespace

void* map_block(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without it, plain pages
  mapped.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void unmap_block(void* p, size_t bytes) {
  munmap(p, bytes);
  mapped.fetch_sub(bytes, std::memory_order_relaxed);
}

size_t mapped_bytes() {
  return mapped.load(std::memory_order_relaxed);
}

}  // namespace ibpulse::converters::detail
