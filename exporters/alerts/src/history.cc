#include "history.h"

#include <algorithm>

namespace ibpulse::exporters::alerts {

CounterHistory::CounterHistory(CounterSource source, milliseconds window)
    : source_(std::move(source)), window_(window), step_(std::max(window / 6, milliseconds(1))) {}

uint64_t CounterHistory::value_in(const Slot& slot, const PortLayout& layout, size_t i,
                                  collector::PortKey key) const {
  if (slot.layout == layout) return slot.at(i);
  const auto& keys = *slot.layout;
  const auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) return kAbsent;
  return slot.at(static_cast<size_t>(it - keys.begin()));
}

std::optional<Increase> CounterHistory::increase(const converters::FabricSnapshot& s,
                                                 const PortLayout& layout, size_t i) const {
  const converters::PortSnapshot& p = s.ports[i];
  const auto now = counter_value(source_, p);
  if (!now) return std::nullopt;
  // The base: the newest value from at least a window ago, so the increase covers the whole
  // window (and a window shorter than the snapshot interval still has one); without one yet,
  // the oldest value inside the window (a port read only recently).
  const Slot* base_slot = nullptr;
  uint64_t base = kAbsent;
  for (const Slot& slot : slots_) {
    if (slot.time >= s.published) break;
    const bool covers = slot.time + window_ <= s.published;
    if (!covers && base_slot != nullptr) break;
    const uint64_t v = value_in(slot, layout, i, p.key);
    if (v == kAbsent) continue;
    base_slot = &slot;
    base = v;
    if (!covers) break;
  }
  if (base_slot == nullptr) return std::nullopt;
  const double seconds = std::chrono::duration<double>(s.published - base_slot->time).count();
  // Totals never go down; a lower value means the port's history restarted (its state was
  // lost): no increase rather than a huge one.
  return Increase{*now >= base ? *now - base : 0, seconds};
}

void CounterHistory::observe(const converters::FabricSnapshot& s, const PortLayout& layout) {
  while (!slots_.empty() && slots_.front().time + window_ + step_ < s.published) {
    slots_.pop_front();
  }
  // The newest slot's blocks (even a provisional one: the previous snapshot's values), to share.
  std::vector<std::shared_ptr<const Block>> previous;
  if (!slots_.empty() && slots_.back().layout == layout) previous = slots_.back().blocks;
  if (last_provisional_ && !slots_.empty()) slots_.pop_back();
  last_provisional_ = !slots_.empty() && s.published - slots_.back().time < step_;
  Slot slot{s.published, layout, {}};
  const size_t n = s.ports.size();
  slot.blocks.reserve((n + kBlock - 1) / kBlock);
  Block block;
  for (size_t first = 0; first < n; first += kBlock) {
    block.fill(kAbsent);
    for (size_t i = first; i < std::min(n, first + kBlock); ++i) {
      if (source_.kind == CounterSource::Kind::kFamily) prefetch_extra(s.ports, i);
      if (const auto v = counter_value(source_, s.ports[i])) block[i - first] = *v;
    }
    const size_t b = first / kBlock;
    if (b < previous.size() && *previous[b] == block) {
      slot.blocks.push_back(previous[b]);
    } else {
      slot.blocks.push_back(std::make_shared<const Block>(block));
    }
  }
  slots_.push_back(std::move(slot));
}

}  // namespace ibpulse::exporters::alerts
