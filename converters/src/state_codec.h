#pragma once
// The state file's byte codec (little-endian, as written): a growing writer, a bounds-checked
// reader, and the checksum that seals the file. Private to the state file's sources.

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "ibpulse/converters/accumulator.h"

namespace ibpulse::converters::state_codec {

static_assert(std::endian::native == std::endian::little,
              "the state file is little-endian; a big-endian build needs byte swaps here");

// FNV-1a over the bytes: catches truncation and damage (not an adversary: the file is ours).
inline uint64_t checksum(const char* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<uint8_t>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }
  // A short string: one length byte, then the bytes.
  void put_text(std::string_view text) {
    put<uint8_t>(static_cast<uint8_t>(text.size()));
    out_.append(text.data(), text.size());
  }
  void put_counter(const CounterState& c) {
    put<uint64_t>(c.total);
    put<uint64_t>(c.last_raw);
    put<uint8_t>(static_cast<uint8_t>(c.source));
    put<uint8_t>(c.saturated ? 1 : 0);
  }
  std::string finish() {
    put<uint64_t>(checksum(out_.data(), out_.size()));
    return std::move(out_);
  }
  void reserve(size_t n) { out_.reserve(n); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  bool get(T& value) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool get_text(std::string& text) {
    uint8_t size = 0;
    if (!get(size) || bytes_.size() - at_ < size) return false;
    text.assign(bytes_.data() + at_, size);
    at_ += size;
    return true;
  }
  bool get_counter(CounterState& c) {
    uint8_t source = 0;
    uint8_t saturated = 0;
    if (!get(c.total) || !get(c.last_raw) || !get(source) || !get(saturated)) return false;
    if (source > static_cast<uint8_t>(Source::kWide) || saturated > 1) return false;
    c.source = static_cast<Source>(source);
    c.saturated = saturated != 0;
    return true;
  }
  size_t offset() const { return at_; }

 private:
  const std::string& bytes_;
  size_t at_ = 0;
};

}  // namespace ibpulse::converters::state_codec
