// Reading fields out of attribute data (the decoders' hot path) and the lookups over the field
// table (fields.cc).
#include <array>
#include <cstring>

#include "ibpulse/base/check.h"
#include "ibpulse/schema/fields.h"

namespace ibpulse::schema {

std::span<const Field> fields_of(Attribute attribute, Layout layout) {
  // Computed once: decoders call this for every sample.
  static const auto table = [] {
    std::array<std::array<std::span<const Field>, 256>, kLayoutCount> spans{};
    const std::span<const Field> fields = all_fields();
    for (size_t i = 0; i < fields.size();) {
      size_t end = i;
      while (end < fields.size() && fields[end].attribute == fields[i].attribute &&
             fields[end].layout == fields[i].layout)
        ++end;
      spans[static_cast<size_t>(fields[i].layout)]
           [static_cast<size_t>(fields[i].attribute) & 0xff] = {fields.data() + i, end - i};
      i = end;
    }
    return spans;
  }();
  const auto id = static_cast<size_t>(attribute);
  const auto l = static_cast<size_t>(layout);
  return id < 256 && l < kLayoutCount ? table[l][id] : std::span<const Field>{};
}

std::optional<Field> find_field(Attribute attribute, std::string_view name, Layout layout) {
  for (const Field& f : fields_of(attribute, layout)) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

uint64_t extract_bits(std::span<const uint8_t> data, unsigned bit_offset, unsigned width) {
  IBPULSE_CHECK(width >= 1 && width <= 64, "a field of {} bits", width);
  const size_t first = bit_offset / 8;
  const unsigned shift = bit_offset % 8;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  // The hot path: one big-endian 8-byte load covers the field (every counter but a 64-bit one
  // off a byte boundary, which no attribute has).
  if (shift + width <= 64 && first + 8 <= data.size()) {
    uint64_t word = 0;
    std::memcpy(&word, data.data() + first, sizeof word);
    word = __builtin_bswap64(word);
    return (word >> (64 - shift - width)) & mask;
  }
  // Near the end of the data: whole bytes, reading zeros past the end.
  const size_t bytes = (shift + width + 7) / 8;
  if (bytes <= 8) {
    uint64_t window = 0;
    for (size_t i = 0; i < bytes; ++i) {
      window = (window << 8) | (first + i < data.size() ? data[first + i] : 0u);
    }
    return (window >> (bytes * 8 - shift - width)) & mask;
  }
  // A 64-bit field not starting on a byte boundary spans nine bytes: go bit by bit.
  uint64_t value = 0;
  for (unsigned bit = bit_offset; bit < bit_offset + width; ++bit) {
    const size_t byte = bit / 8;
    const unsigned set = byte < data.size() ? (data[byte] >> (7 - bit % 8)) & 1u : 0u;
    value = (value << 1) | set;
  }
  return value;
}

SelectMasks select_masks_for(std::span<const Field> fields) {
  SelectMasks masks;
  for (const Field& f : fields) {
    if (f.select == SelectMask::kCounterSelect) masks.counter_select |= uint64_t{1} << f.select_bit;
    if (f.select == SelectMask::kCounterSelect2)
      masks.counter_select2 |= uint64_t{1} << f.select_bit;
  }
  return masks;
}

}  // namespace ibpulse::schema
