#include "ibpulse/converters/mapped_allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <new>

namespace ibpulse::converters::detail {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
std::atomic<size_t> mapped{0};

size_t mapped_size(size_t bytes) {
  return (bytes + kHugePage - 1) & ~(kHugePage - 1);
}

}  // namespace

void* map_block(size_t bytes) {
  const size_t size = mapped_size(bytes);
  // One huge page more than needed, then the ends trimmed so that the block starts on a 2 MiB
  // boundary: the kernel backs only aligned 2 MiB ranges with huge pages.
  void* raw =
      mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto first = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t start = (first + kHugePage - 1) & ~(kHugePage - 1);
  if (start > first) munmap(raw, start - first);
  const uintptr_t tail = first + size + kHugePage - (start + size);
  if (tail > 0) munmap(reinterpret_cast<void*>(start + size), tail);
  void* p = reinterpret_cast<void*>(start);
  madvise(p, size, MADV_HUGEPAGE);  // advice only: without it, plain pages
  mapped.fetch_add(size, std::memory_order_relaxed);
  return p;
}

void unmap_block(void* p, size_t bytes) {
  const size_t size = mapped_size(bytes);
  munmap(p, size);
  mapped.fetch_sub(size, std::memory_order_relaxed);
}

size_t mapped_bytes() {
  return mapped.load(std::memory_order_relaxed);
}

}  // namespace ibpulse::converters::detail
