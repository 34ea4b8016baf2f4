#pragma once
// Gives memory back to the system after a transient peak. glibc keeps freed heap memory for
// reuse and returns little of it by itself when the freed chunks are small and scattered
// (remote-write queues filled to their bound while a receiver was down, then drained; the
// per-VL blocks of old snapshots): on a 70,000-port fabric that left tens of MB held for the
// daemon's life.
// HeapTrim watches a quantity that drives such peaks and calls malloc_trim once it has fallen
// well below its high-water mark.
//
// Thread safety: none; one thread owns a HeapTrim (malloc_trim itself is thread-safe).

#include <cstddef>

namespace ibpulse {

class HeapTrim {
 public:
  // A peak counts from `min_peak_bytes`; it is trimmed once the quantity is below a quarter of
  // it.
  explicit HeapTrim(size_t min_peak_bytes) : min_peak_(min_peak_bytes) {}

  // The quantity now, at a high point (its peak is kept, nothing is trimmed).
  void observe(size_t bytes) { peak_ = bytes > peak_ ? bytes : peak_; }
  // The quantity now, at a low point: trims when due. True when this call trimmed the heap.
  bool note(size_t bytes);
  // Whether note(bytes) would trim, without trimming (the policy, for tests).
  bool due(size_t bytes) const { return peak_ >= min_peak_ && bytes * 4 <= peak_; }

  size_t peak() const { return peak_; }  // since the last trim

 private:
  size_t min_peak_;
  size_t peak_ = 0;
};

// malloc_trim(0) where glibc has it: every arena's free pages back to the system. True when
// memory was returned.
bool trim_heap();

}  // namespace ibpulse
