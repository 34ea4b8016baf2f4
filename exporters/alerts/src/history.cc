#include "history.h"

#include <algorithm>

namespace ibpulse::exporters::alerts {

CounterHistory::CounterHistory(CounterSource source, milliseconds window)
    : source_(std::move(source)), window_(window), step_(std::max(window / 6, milliseconds(1))) {}

uint64_t CounterHistory::value_in(const Slot& slot, size_t i, collector::PortKey key) const {
  if (slot.layout == pending_.layout) return slot.at(i);
  const auto& keys = *slot.layout;
  const auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) return kAbsent;
  return slot.at(static_cast<size_t>(it - keys.begin()));
}

void CounterHistory::begin(const converters::FabricSnapshot& s, const PortLayout& layout) {
  pending_ = Slot{s.published, layout, {}};
  pending_.blocks.resize((s.ports.size() + kBlock - 1) / kBlock);
  // The newest slot's blocks (even a provisional one: the previous snapshot's values), to share.
  // Read while the snapshot is gathered; slots_ changes only in commit().
  previous_ = !slots_.empty() && slots_.back().layout == layout ? &slots_.back() : nullptr;
  window_base_ = nullptr;
  for (const Slot& slot : slots_) {
    if (slot.time >= s.published || slot.time + window_ > s.published) break;
    window_base_ = &slot;
  }
}

void CounterHistory::gather(const converters::FabricSnapshot& s, size_t b) {
  Block block;
  block.fill(kAbsent);
  const size_t first = b * kBlock;
  const size_t last = std::min(s.ports.size(), first + kBlock);
  for (size_t i = first; i < last; ++i) {
    if (source_.kind == CounterSource::Kind::kFamily) prefetch_extra(s.ports, i);
    if (const auto v = counter_value(source_, s.ports[i])) block[i - first] = *v;
  }
  if (previous_ != nullptr && b < previous_->blocks.size() && *previous_->blocks[b] == block) {
    pending_.blocks[b] = previous_->blocks[b];
  } else {
    pending_.blocks[b] = std::make_shared<const Block>(block);
  }
}

Increase CounterHistory::increase_since(const Slot& base_slot, uint64_t base, uint64_t now) const {
  const double seconds = std::chrono::duration<double>(pending_.time - base_slot.time).count();
  // Totals never go down; a lower value means the port's history restarted (its state was
  // lost): no increase rather than a huge one.
  return Increase{now >= base ? now - base : 0, seconds};
}

bool CounterHistory::unchanged(size_t b) const {
  return window_base_ != nullptr && window_base_->layout == pending_.layout &&
         window_base_->blocks[b] == pending_.blocks[b];
}

std::optional<Increase> CounterHistory::increase(const converters::FabricSnapshot& s,
                                                 size_t i) const {
  const uint64_t now = pending_.at(i);
  if (now == kAbsent) return std::nullopt;
  // The base: the newest value from at least a window ago, so the increase covers the whole
  // window (and a window shorter than the snapshot interval still has one). Usually the slot
  // found once per snapshot has it; otherwise see search_base().
  if (window_base_ != nullptr && window_base_->layout == pending_.layout) {
    const uint64_t base = window_base_->at(i);
    if (base != kAbsent) return increase_since(*window_base_, base, now);
  }
  return search_base(s, i, now);
}

// The newest slot a window old with a value for the port (its layout may differ: the port is
// looked up); without one yet, the oldest value inside the window (a port read only recently).
std::optional<Increase> CounterHistory::search_base(const converters::FabricSnapshot& s, size_t i,
                                                    uint64_t now) const {
  const Slot* base_slot = nullptr;
  uint64_t base = kAbsent;
  for (const Slot& slot : slots_) {
    if (slot.time >= s.published) break;
    const bool covers = slot.time + window_ <= s.published;
    if (!covers && base_slot != nullptr) break;
    const uint64_t v = value_in(slot, i, s.ports[i].key);
    if (v == kAbsent) continue;
    base_slot = &slot;
    base = v;
    if (!covers) break;
  }
  if (base_slot == nullptr) return std::nullopt;
  return increase_since(*base_slot, base, now);
}

// A port first read after the newest kept slot (a daemon's first snapshots come before its
// first sweep ends; a port found by a later discovery): that slot takes the port's first value.
// Its base is then its first reading; else it would be the provisional slot, the snapshot
// before, and its first window/6 (100 s of a 10-minute window) would count one snapshot's
// increase at a time.
void CounterHistory::backfill_newest_kept() {
  if (slots_.empty()) return;
  if (last_provisional_ && slots_.size() < 2) return;
  Slot& kept = last_provisional_ ? slots_[slots_.size() - 2] : slots_.back();
  if (kept.layout != pending_.layout) return;
  for (size_t b = 0; b < kept.blocks.size() && b < pending_.blocks.size(); ++b) {
    if (kept.blocks[b] == pending_.blocks[b]) continue;
    const Block& old_values = *kept.blocks[b];
    const Block& now = *pending_.blocks[b];
    std::shared_ptr<Block> filled;
    for (size_t i = 0; i < kBlock; ++i) {
      if (old_values[i] != kAbsent || now[i] == kAbsent) continue;
      if (!filled) filled = std::make_shared<Block>(old_values);
      (*filled)[i] = now[i];
    }
    if (filled) kept.blocks[b] = std::move(filled);
  }
}

void CounterHistory::commit() {
  backfill_newest_kept();
  const auto published = pending_.time;
  window_base_ = nullptr;
  previous_ = nullptr;
  while (!slots_.empty() && slots_.front().time + window_ + step_ < published) {
    slots_.pop_front();
  }
  if (last_provisional_ && !slots_.empty()) slots_.pop_back();
  // A snapshot of another layout than the newest kept slot (the daemon's first, before the
  // topology; a rediscovery) is kept: its ports' first values need a kept slot of their own.
  last_provisional_ = !slots_.empty() && published - slots_.back().time < step_ &&
                      slots_.back().layout == pending_.layout;
  slots_.push_back(std::move(pending_));
  pending_ = {};
}

}  // namespace ibpulse::exporters::alerts
