#include "ibpulse/exporters/remote_write/change_filter.h"

#include <bit>

namespace ibpulse::exporters::remote_write {
namespace {

uint32_t fingerprint(double value) {
  const uint64_t h = std::bit_cast<uint64_t>(value) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint32_t>(h >> 32);
}

}  // namespace

ChangeFilter::ChangeFilter(bool changed_only, uint32_t resend_s)
    : changed_only_(changed_only), resend_s_(resend_s), slots_(1024) {}

void ChangeFilter::begin(uint32_t now_s) {
  now_s_ = now_s;
  ++generation_;
}

size_t ChangeFilter::find_slot(uint64_t key) const {
  const size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(key) & mask;
  while (slots_[i].key != 0 && (slots_[i].key & ~kSeenBit) != key)
    i = (i + 1) & mask;
  return i;
}

void ChangeFilter::grow() {
  std::vector<Entry> old(slots_.size() * 2);
  old.swap(slots_);
  for (const Entry& e : old) {
    if (e.key != 0) slots_[find_slot(e.key & ~kSeenBit)] = e;
  }
}

bool ChangeFilter::offer(uint64_t key, double value) {
  key = normal(key);
  if ((used_ + 1) * 4 > slots_.size() * 3) grow();
  Entry& e = slots_[find_slot(key)];
  const uint32_t fp = fingerprint(value);
  if (e.key == 0) {
    e = {key | seen_bit(), fp, now_s_};
    ++used_;
    return true;
  }
  e.key = key | seen_bit();
  const bool due = !changed_only_ || e.sent_s == kNeverSent || e.value_fp != fp ||
                   now_s_ - e.sent_s >= resend_s_;
  if (due) {
    e.value_fp = fp;
    e.sent_s = now_s_;
  }
  return due;
}

void ChangeFilter::unsent(uint64_t key) {
  Entry& e = slots_[find_slot(normal(key))];
  if (e.key != 0) e.sent_s = kNeverSent;
}

// Backward-shift deletion: the entries after the hole move up when their home allows it, so
// lookups never need tombstones.
void ChangeFilter::erase(size_t slot) {
  const size_t mask = slots_.size() - 1;
  size_t hole = slot;
  for (size_t i = (slot + 1) & mask; slots_[i].key != 0; i = (i + 1) & mask) {
    const size_t home = static_cast<size_t>(slots_[i].key & ~kSeenBit) & mask;
    // Movable when its home is not within (hole, i], cyclically.
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      slots_[hole] = slots_[i];
      hole = i;
    }
  }
  slots_[hole] = Entry{};
  --used_;
}

std::vector<uint64_t> ChangeFilter::finish() {
  std::vector<uint64_t> gone;
  for (const Entry& e : slots_) {
    if (e.key != 0 && (e.key & kSeenBit) != seen_bit()) gone.push_back(e.key & ~kSeenBit);
  }
  for (const uint64_t key : gone)
    erase(find_slot(key));
  if (slots_.size() > 1024 && used_ * 4 < slots_.size()) {  // below 1/4 full: half the size
    std::vector<Entry> old(slots_.size() / 2);
    old.swap(slots_);
    for (const Entry& e : old) {
      if (e.key != 0) slots_[find_slot(e.key & ~kSeenBit)] = e;
    }
  }
  return gone;
}

}  // namespace ibpulse::exporters::remote_write
