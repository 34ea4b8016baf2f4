#pragma once
// An allocator that maps large blocks straight from the kernel and unmaps them when freed.
// Snapshot storage (440 bytes per port, 31 MB on a 70,000-port fabric) is allocated once per
// publish and freed when its last reader lets go: glibc would keep a freed block of that size
// for reuse (its mmap threshold rises to the largest block freed, up to 32 MB), and the
// converter used to keep one spare for the next snapshot too, so the daemon held two
// snapshots' storage between publishes instead of one. Mapping costs the page faults of
// filling fresh pages (huge pages where the kernel allows them: a few ms per snapshot).
//
// Thread safety: allocate and free from any thread.

#include <cstddef>

namespace ibpulse::converters {

namespace detail {
void* map_block(size_t bytes);  // throws std::bad_alloc
void unmap_block(void* p, size_t bytes);
size_t mapped_bytes();  // mapped now, by every MappedAllocator (memory_bench counts it)
inline constexpr size_t kMapFrom = size_t{1} << 20;  // smaller blocks come from operator new
}  // namespace detail

template <typename T>
struct MappedAllocator {
  using value_type = T;
  MappedAllocator() = default;
  template <typename U>
  MappedAllocator(const MappedAllocator<U>&) {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    return static_cast<T*>(bytes < detail::kMapFrom ? ::operator new(bytes)
                                                    : detail::map_block(bytes));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < detail::kMapFrom) {
      ::operator delete(p);
    } else {
      detail::unmap_block(p, bytes);
    }
  }
  friend bool operator==(MappedAllocator, MappedAllocator) { return true; }
};

}  // namespace ibpulse::converters
