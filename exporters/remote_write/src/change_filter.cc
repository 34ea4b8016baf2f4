#include "ibpulse/exporters/remote_write/change_filter.h"

#include <algorithm>
#include <bit>

namespace ibpulse::exporters::remote_write {
namespace {

uint32_t fingerprint(double value) {
  const uint64_t h = std::bit_cast<uint64_t>(value) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint32_t>(h >> 32);
}

}  // namespace

ChangeFilter::ChangeFilter(bool changed_only, uint32_t resend_s)
    : changed_only_(changed_only), resend_s_(resend_s), slots_(kMinEntries) {}

void ChangeFilter::begin(uint32_t now_s) {
  now_s_ = now_s;
  ++generation_;
}

size_t ChangeFilter::find_slot(uint64_t key) const {
  size_t i = home(key);
  while (slots_[i].key != 0 && (slots_[i].key & ~kSeenBit) != key)
    i = next(i);
  return i;
}

void ChangeFilter::resize(size_t entries) {
  std::vector<Entry> old(std::max<size_t>(entries, kMinEntries));
  old.swap(slots_);
  for (const Entry& e : old) {
    if (e.key != 0) slots_[find_slot(e.key & ~kSeenBit)] = e;
  }
}

bool ChangeFilter::offer(uint64_t key, double value) {
  key = normal(key);
  if ((used_ + 1) * 8 > slots_.size() * 7) resize(slots_.size() * 2);
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
  const size_t size = slots_.size();
  // How far `from` is behind `i`, cyclically.
  const auto distance = [size](size_t from, size_t i) {
    return i >= from ? i - from : i + size - from;
  };
  size_t hole = slot;
  for (size_t i = next(slot); slots_[i].key != 0; i = next(i)) {
    // Movable when its home is not within (hole, i], cyclically.
    if (distance(home(slots_[i].key & ~kSeenBit), i) >= distance(hole, i)) {
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
  // 0.7 full once the snapshot is known, unless within a quarter of that already.
  const size_t target = std::max<size_t>(used_ * 10 / 7, kMinEntries);
  if (slots_.size() * 4 > target * 5 || slots_.size() * 5 < target * 4) resize(target);
  return gone;
}

}  // namespace ibpulse::exporters::remote_write
