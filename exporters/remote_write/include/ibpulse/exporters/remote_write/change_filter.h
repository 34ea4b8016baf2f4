#pragma once
// remote-write.changed-only and staleness: per series, the value last sent, so that an
// unchanged series goes out only once every `resend`, and a series that left the snapshot is
// found (and then sent once as a stale marker).
//
// Memory: 8 bytes per series and nothing per empty slot. A snapshot's series come in the same
// order every time (the renderer writes each family's ports in snapshot order), so the state is
// kept per family in that order: a 32-bit part of the series' hash, which checks that position
// i is still the same series, and a 32-bit fingerprint of the value last sent (4.1 M series at
// 70,000 ports: 33 MB, 0.47 KB per port; the hash table of 16-byte entries it replaced took
// 93 MB at 0.7 full). When a family's order changes (a port came or left), the family is
// rebuilt: each series is looked up by its hash part among the old positions (the one nearest
// after the last match wins when two share it), and the positions nobody matched are the
// series that left. Those are reported by position, and found again by rendering the previous
// snapshot (no series text is kept). A series that leaves next to one with the same 32 bits
// (2^-32 per series that leaves) may be taken for it: the one still there then gets the stale
// marker, and is missing in the receiver until its next sample (a change, or its resend).
//
// Resend: each series has a phase in [0, resend) from its hash; an unchanged series is sent in
// the first snapshot after its phase comes round, so it is never more than resend plus one
// snapshot interval without a sample, and the resends of a steady fabric spread evenly over the
// interval instead of coming all at once every `resend`. No time is kept per series.
//
// A changed value whose fingerprint equals the old one (2^-31) waits for its resend.
//
// Thread safety: none; one writer thread owns a filter.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ibpulse::exporters::remote_write {

// The series that left, by family and by position in the family as the previous snapshot
// listed its series.
class GoneSeries {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  void add(const std::string& family, std::vector<uint32_t> positions);

  // Follows a rendering of the previous snapshot (the one the positions refer to): left()
  // is called for every series line it yields, in order, and is true for those that left.
  class Walk {
   public:
    explicit Walk(const GoneSeries& gone) : gone_(gone) {}
    bool left(std::string_view family);

   private:
    const GoneSeries& gone_;
    std::string family_;
    bool started_ = false;
    const std::vector<uint32_t>* positions_ = nullptr;
    size_t next_ = 0;
    uint32_t position_ = 0;
  };

 private:
  std::unordered_map<std::string, std::vector<uint32_t>> by_family_;  // sorted positions
  size_t count_ = 0;
};

class ChangeFilter {
 public:
  // changed_only false: every series is sent in every snapshot (the state still finds the
  // series that left). resend_s: seconds between sends of an unchanged series.
  ChangeFilter(bool changed_only, uint32_t resend_s);
  ~ChangeFilter();

  // A new snapshot, at `now_s` (seconds on any monotonic clock); finish() ends each one.
  void begin(uint32_t now_s);
  // Series `key` (series_hash) of `family` (the sample's metric name) has `value` in this
  // snapshot: true when it must be sent (new, changed, or its resend is due). Counts it as
  // sent. A family's series must come in one run, in the renderer's order.
  bool offer(std::string_view family, uint64_t key, double value);
  // The sample the last offer() allowed could not be queued: send it at the next snapshot.
  void unsent();
  // Ends the snapshot: the series it no longer has, now forgotten.
  GoneSeries finish();

  size_t size() const;   // series known
  size_t bytes() const;  // the state's memory, without the family names

 private:
  struct Family;
  Family& family(std::string_view name);
  bool resend_due(uint64_t key) const;
  void close(const std::string& name, Family& f, GoneSeries& gone);

  bool changed_only_;
  uint32_t resend_s_;
  uint32_t now_s_ = 0, previous_s_ = 0, generation_ = 0;
  std::unordered_map<std::string, std::unique_ptr<Family>> families_;
  Family* current_ = nullptr;  // the family of the last offer
  std::string_view current_name_;
  uint32_t* last_ = nullptr;  // the fingerprint the last offer() set
};

}  // namespace ibpulse::exporters::remote_write
