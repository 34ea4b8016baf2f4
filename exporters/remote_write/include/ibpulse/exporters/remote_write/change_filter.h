#pragma once
// remote-write.changed-only and staleness: per series, what was last sent and when, so that an
// unchanged series goes out only every `resend`, and a series that left the snapshot is found
// (and then sent once as a stale marker).
//
// Memory: a flat open-addressing table (linear probing) of 16-byte entries: the series' 63-bit
// hash (plus a bit: seen in this snapshot), a 32-bit fingerprint of the value last sent and the
// second it was sent. Its size is any number of entries, not a power of two (a key's home is
// the multiply-shift of its hash): at the end of each snapshot it is set to 10/7 of the series
// if it is off that by more than a quarter, so a steady snapshot keeps it 0.7 full, 23 bytes
// per series (4.1 M series at 70,000 ports: 93 MB, 1.3 KB per port; doubling tables at 3/4
// took 134 MB there). Within a snapshot it doubles past 7/8 full. No series text is kept: the
// series of a stale marker are found by rendering the previous snapshot again. Two series with the
// same hash (about 1e-6 at 3.7 M series) share one entry; a change whose value has the same
// fingerprint (2^-32) waits for the resend.
//
// Thread safety: none; one writer thread owns a filter.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibpulse::exporters::remote_write {

class ChangeFilter {
 public:
  // changed_only false: every series is sent in every snapshot (the table still finds the
  // series that left). resend_s: seconds between sends of an unchanged series.
  ChangeFilter(bool changed_only, uint32_t resend_s);

  // A new snapshot, at `now_s` (seconds on any monotonic clock); finish() ends each one.
  void begin(uint32_t now_s);
  // Series `key` has `value` in this snapshot: true when it must be sent (new, changed, or
  // unchanged for resend_s). Counts it as sent.
  bool offer(uint64_t key, double value);
  // The sample offer() allowed could not be queued: send it again at the next snapshot.
  void unsent(uint64_t key);
  // Ends the snapshot: the keys of the series it no longer has, now forgotten.
  std::vector<uint64_t> finish();

  // The form of a key finish() returns (and offer() stores).
  static uint64_t normal(uint64_t key) {
    key &= ~kSeenBit;
    return key == 0 ? 1 : key;
  }

  size_t size() const { return used_; }
  size_t bytes() const { return slots_.size() * sizeof(Entry); }

 private:
  static constexpr uint64_t kSeenBit = uint64_t{1} << 63;
  static constexpr uint32_t kNeverSent = UINT32_MAX;
  static constexpr size_t kMinEntries = 1024;
  struct Entry {
    uint64_t key = 0;  // normal(hash), plus kSeenBit when the current snapshot's parity; 0: empty
    uint32_t value_fp = 0;
    uint32_t sent_s = 0;  // kNeverSent: send at the next offer
  };
  uint64_t seen_bit() const { return (generation_ & 1) != 0 ? kSeenBit : 0; }
  size_t home(uint64_t key) const {  // normal key -> [0, size): the top bits of key x size
    return static_cast<size_t>((static_cast<unsigned __int128>(key << 1) * slots_.size()) >> 64);
  }
  size_t next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
  size_t find_slot(uint64_t key) const;  // normal key: its slot, or the empty one for it
  void resize(size_t entries);
  void erase(size_t slot);

  bool changed_only_;
  uint32_t resend_s_;
  uint32_t now_s_ = 0, generation_ = 0;
  std::vector<Entry> slots_;
  size_t used_ = 0;
};

}  // namespace ibpulse::exporters::remote_write
