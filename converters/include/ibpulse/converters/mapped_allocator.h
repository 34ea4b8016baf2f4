#pragma once
// An allocator for the converters' large arrays: blocks of 1 MiB and more are mapped straight
// from the kernel, 2 MiB-aligned and advised onto transparent huge pages, and unmapped when
// freed; smaller ones come from operator new, 64-byte aligned.
// - Huge pages: converting samples in random port order over the port states (67 MB on a
//   70,000-port fabric) otherwise misses the TLB on nearly every sample.
// - Unmapped on free: snapshot storage (440 bytes per port, 31 MB there) is allocated once per
//   publish and freed when its last reader lets go. glibc would keep a freed block of that size
//   for reuse (its mmap threshold rises to the largest block freed, up to 32 MB), so the daemon
//   held two snapshots' storage between publishes instead of one. Fresh pages cost the faults
//   of filling them: a few ms per snapshot.
//
// Thread safety: allocate and free from any thread.

#include <cstddef>
#include <new>

namespace ibpulse::converters {

namespace detail {
void* map_block(size_t bytes);  // throws std::bad_alloc
void unmap_block(void* p, size_t bytes);
size_t mapped_bytes();  // mapped now, by every MappedAllocator (memory_bench counts it)
inline constexpr size_t kMapFrom = size_t{1} << 20;  // smaller blocks come from operator new
inline constexpr std::align_val_t kSmallAlignment{64};
}  // namespace detail

template <typename T>
struct MappedAllocator {
  using value_type = T;
  MappedAllocator() = default;
  template <typename U>
  MappedAllocator(const MappedAllocator<U>& /*other*/) {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    return static_cast<T*>(bytes < detail::kMapFrom ? ::operator new(bytes, detail::kSmallAlignment)
                                                    : detail::map_block(bytes));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < detail::kMapFrom) {
      ::operator delete(p, detail::kSmallAlignment);
    } else {
      detail::unmap_block(p, bytes);
    }
  }
  friend bool operator==(MappedAllocator /*a*/, MappedAllocator /*b*/) { return true; }
};

}  // namespace ibpulse::converters
