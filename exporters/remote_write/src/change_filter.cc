#include "ibpulse/exporters/remote_write/change_filter.h"

#include <algorithm>
#include <bit>

namespace ibpulse::exporters::remote_write {
namespace {

// Never 0: a stored 0 means "send at the next offer".
uint32_t fingerprint(double value) {
  const uint64_t h = std::bit_cast<uint64_t>(value) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint32_t>(h >> 32) | 1;
}

// The part of a series' hash kept per position (the shard queues use the high half).
uint32_t check_bits(uint64_t key) {
  return static_cast<uint32_t>(key);
}

template <typename T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// A vector filled by push_back holds up to twice its size.
template <typename T>
void fit(std::vector<T>& v) {
  if (v.capacity() > v.size() + v.size() / 8) v.shrink_to_fit();
}

}  // namespace

// One family's series in the order of the last snapshot, and the progress of this one.
struct ChangeFilter::Family {
  std::vector<uint32_t> keys, fps;  // check_bits, fingerprint (0: send next time)
  uint32_t seen = 0;                // the generation that last offered a series of it
  uint32_t cursor = 0;              // the old position expected next
  // Set once this snapshot's order differs from the last: the series are then copied into
  // new_keys/new_fps, and `taken` marks the old positions matched.
  bool rebuilding = false;
  std::vector<uint32_t> new_keys, new_fps;
  std::vector<bool> taken;
  std::vector<uint64_t> index;  // check_bits << 32 | old position, sorted; built on first need

  void start_rebuild() {
    rebuilding = true;
    new_keys.assign(keys.begin(), keys.begin() + cursor);
    new_fps.assign(fps.begin(), fps.begin() + cursor);
    new_keys.reserve(keys.size() + 64);
    new_fps.reserve(keys.size() + 64);
    taken.assign(keys.size(), false);
    std::fill(taken.begin(), taken.begin() + cursor, true);
  }

  // The old position of a series not found at the cursor: among the positions with its check
  // bits not yet taken, the first at or after the cursor, else the first. keys.size() if none.
  size_t find(uint32_t check) {
    if (index.empty() && !keys.empty()) {
      index.reserve(keys.size());
      for (size_t i = 0; i < keys.size(); ++i)
        index.push_back(uint64_t{keys[i]} << 32 | i);
      std::sort(index.begin(), index.end());
    }
    size_t first = keys.size();
    for (auto it = std::lower_bound(index.begin(), index.end(), uint64_t{check} << 32);
         it != index.end() && (*it >> 32) == check; ++it) {
      const auto at = static_cast<uint32_t>(*it);
      if (taken[at]) continue;
      if (at >= cursor) return at;
      first = std::min<size_t>(first, at);
    }
    return first;
  }

  // Where this snapshot keeps the series `check` offered now, with the fingerprint it was
  // last sent with (0 if new).
  uint32_t* place(uint32_t check) {
    if (!rebuilding && cursor < keys.size() && keys[cursor] == check) return &fps[cursor++];
    if (!rebuilding) start_rebuild();
    size_t at =
        cursor < keys.size() && keys[cursor] == check && !taken[cursor] ? cursor : find(check);
    new_keys.push_back(check);
    new_fps.push_back(0);
    if (at < keys.size()) {
      taken[at] = true;
      cursor = static_cast<uint32_t>(at + 1);
      new_fps.back() = fps[at];
    }
    return &new_fps.back();
  }
};

void GoneSeries::add(const std::string& family, std::vector<uint32_t> positions) {
  if (positions.empty()) return;
  count_ += positions.size();
  by_family_[family] = std::move(positions);
}

bool GoneSeries::Walk::left(std::string_view family) {
  if (!started_ || family != family_) {
    started_ = true;
    family_.assign(family);
    const auto it = gone_.by_family_.find(family_);
    positions_ = it == gone_.by_family_.end() ? nullptr : &it->second;
    next_ = 0;
    position_ = 0;
  }
  const uint32_t at = position_++;
  if (positions_ == nullptr || next_ >= positions_->size() || (*positions_)[next_] != at)
    return false;
  ++next_;
  return true;
}

ChangeFilter::ChangeFilter(bool changed_only, uint32_t resend_s)
    : changed_only_(changed_only), resend_s_(resend_s) {}

ChangeFilter::~ChangeFilter() = default;

void ChangeFilter::begin(uint32_t now_s) {
  previous_s_ = generation_ == 0 ? now_s : now_s_;
  now_s_ = now_s;
  ++generation_;
  current_ = nullptr;
  last_ = nullptr;
}

ChangeFilter::Family& ChangeFilter::family(std::string_view name) {
  if (current_ != nullptr && name == current_name_) return *current_;
  auto it = families_.find(std::string(name));
  if (it == families_.end()) it = families_.emplace(name, std::make_unique<Family>()).first;
  current_ = it->second.get();
  current_name_ = it->first;
  current_->seen = generation_;
  return *current_;
}

// Whether the series' phase came round between the last snapshot and this one.
bool ChangeFilter::resend_due(uint64_t key) const {
  if (resend_s_ == 0) return true;
  // Not from the high half alone: the shard queues use it (writer.cc), and the resends of one
  // snapshot, which share a phase, would all go to one shard.
  const uint64_t phase = (key >> 16) % resend_s_;
  return (now_s_ + phase) / resend_s_ != (previous_s_ + phase) / resend_s_;
}

bool ChangeFilter::offer(std::string_view family_name, uint64_t key, double value) {
  uint32_t* sent = family(family_name).place(check_bits(key));
  const uint32_t fp = fingerprint(value);
  const bool due = !changed_only_ || *sent != fp || resend_due(key);
  if (due) *sent = fp;
  last_ = sent;
  return due;
}

void ChangeFilter::unsent() {
  if (last_ != nullptr) *last_ = 0;
}

// NOLINTNEXTLINE(readability-make-member-function-const): `f` is one of families_, changed here
void ChangeFilter::close(const std::string& name, Family& f, GoneSeries& gone) {
  std::vector<uint32_t> left;
  if (f.seen != generation_) {
    left.resize(f.keys.size());
    for (size_t i = 0; i < left.size(); ++i)
      left[i] = static_cast<uint32_t>(i);
    release(f.keys);  // the family is forgotten below
    release(f.fps);
  } else if (!f.rebuilding) {
    for (size_t i = f.cursor; i < f.keys.size(); ++i)
      left.push_back(static_cast<uint32_t>(i));
    f.keys.resize(f.cursor);
    f.fps.resize(f.cursor);
  } else {
    for (size_t i = 0; i < f.keys.size(); ++i) {
      if (!f.taken[i]) left.push_back(static_cast<uint32_t>(i));
    }
    f.keys.swap(f.new_keys);
    f.fps.swap(f.new_fps);
    release(f.new_keys);
    release(f.new_fps);
    release(f.taken);
    release(f.index);
    f.rebuilding = false;
  }
  fit(f.keys);
  fit(f.fps);
  f.cursor = 0;
  gone.add(name, std::move(left));
}

GoneSeries ChangeFilter::finish() {
  GoneSeries gone;
  for (auto it = families_.begin(); it != families_.end();) {
    close(it->first, *it->second, gone);
    it = it->second->keys.empty() ? families_.erase(it) : std::next(it);
  }
  current_ = nullptr;
  last_ = nullptr;
  return gone;
}

size_t ChangeFilter::size() const {
  size_t n = 0;
  for (const auto& [name, f] : families_)
    n += f->keys.size();
  return n;
}

size_t ChangeFilter::bytes() const {
  size_t n = 0;
  for (const auto& [name, f] : families_)
    n += (f->keys.capacity() + f->fps.capacity()) * sizeof(uint32_t);
  return n;
}

}  // namespace ibpulse::exporters::remote_write
