#include "state_counter_map.h"

#include <fmt/format.h>

#include <string>
#include <unordered_map>

#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {
namespace {

std::string counter_key(size_t index) {
  const auto& c = schema::counter_table()[index];
  const auto wide = schema::wide_source(index);
  return fmt::format("{}/{}/{}/{}/{}", c.name, c.label, c.label_value,
                     schema::narrow_source(index).width, wide ? wide->width : 0);
}

std::unordered_map<std::string, uint16_t> keys_now() {
  std::unordered_map<std::string, uint16_t> out;
  for (size_t i = 0; i < schema::counter_count(); ++i)
    out.emplace(counter_key(i), static_cast<uint16_t>(i));
  return out;
}

}  // namespace

CounterMap CounterMap::identity() {
  CounterMap map;
  for (size_t i = 0; i < schema::kCoreCounterCount; ++i)
    map.core.push_back(static_cast<uint16_t>(i));
  for (size_t i = 0; i < schema::extra_counter_count(); ++i)
    map.extra.push_back(static_cast<uint16_t>(i));
  return map;
}

void put_counter_table(state_codec::Writer& out) {
  out.put<uint32_t>(schema::kCoreCounterCount);
  out.put<uint32_t>(static_cast<uint32_t>(schema::counter_count()));
  for (size_t i = 0; i < schema::counter_count(); ++i)
    out.put_text(counter_key(i));
}

bool read_counter_table(state_codec::Reader& in, size_t bytes, CounterMap& map) {
  uint32_t core = 0;
  uint32_t count = 0;
  // The core counters' presence is a 64-bit mask; every key takes at least its length byte.
  if (!in.get(core) || !in.get(count) || core > 64 || core > count || count > bytes) return false;
  const auto now = keys_now();
  map = CounterMap{};
  std::string key;
  for (uint32_t i = 0; i < count; ++i) {
    if (!in.get_text(key)) return false;
    const auto found = now.find(key);
    const bool file_core = i < core;
    uint16_t to = kCounterGone;
    if (found != now.end() && (found->second < schema::kCoreCounterCount) == file_core) {
      to = file_core ? found->second
                     : static_cast<uint16_t>(found->second - schema::kCoreCounterCount);
    }
    map.unknown += found == now.end();
    (file_core ? map.core : map.extra).push_back(to);
  }
  return true;
}

uint64_t counter_schema_fingerprint() {
  std::string names;
  for (const auto& c : schema::counter_table()) {
    names += c.name;
    names += std::to_string(c.label_value);
    names += '\n';
  }
  names += std::to_string(schema::extra_counter_count());
  return state_codec::checksum(names.data(), names.size());
}

}  // namespace ibpulse::converters
