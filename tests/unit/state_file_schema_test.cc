// The state file across ibpulse versions: counters are saved under their names, so a file from
// a version with other counters (added, dropped, reordered) restores every counter both know,
// and a version-1 file (a schema fingerprint, no names) restores only under the same schema.
#include <gtest/gtest.h>

#include <cstring>

#include "state_file_testing.h"

namespace ibpulse::converters {
namespace {

using namespace state_testing;

// The index among the extra counters of `name{label=value}`.
size_t extra_index(std::string_view name, uint8_t label_value) {
  const auto table = schema::counter_table();
  for (size_t i = schema::kCoreCounterCount; i < table.size(); ++i) {
    if (table[i].name == name && table[i].label_value == label_value) {
      return i - schema::kCoreCounterCount;
    }
  }
  ADD_FAILURE() << name << " " << int{label_value} << " is not in the schema";
  return 0;
}

// Replaces `from` (a counter's saved name, which must occur once) by `to`, of the same length.
void rename(std::string& bytes, const std::string& from, const std::string& to) {
  ASSERT_EQ(from.size(), to.size());
  const size_t at = bytes.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  ASSERT_EQ(bytes.find(from, at + 1), std::string::npos) << from;
  bytes.replace(at, from.size(), to);
}

TEST(StateFileSchema, ACounterThisVersionLacksIsDroppedAndTheOthersRestore) {
  const auto t = topology({kA, kB});
  std::string bytes = encode_state(with_history(t), kPrefix);
  // As a version without symbol_error but with another counter in its place would write it.
  rename(bytes, "symbol_error/", "symbol_errxr/");
  reseal(bytes);
  Converter restored({});
  const auto loaded = apply_state(bytes, t, restored);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_TRUE(loaded->counters_refused.empty());
  EXPECT_EQ(loaded->counters_unknown, 1u);
  EXPECT_EQ(loaded->ports, 2u);
  const auto& symbol = restored.state(kA)->core[schema::index_of(CounterId::kSymbolError)];
  EXPECT_EQ(symbol.source, Source::kNone);  // starts fresh, like a counter new in this version
  EXPECT_EQ(symbol.total, 0u);
  EXPECT_EQ(total(restored, kA, CounterId::kLinkDowned), 255u);
  EXPECT_EQ(total(restored, kA, CounterId::kXmitData), 6000u);
  ASSERT_TRUE(restored.state(kB)->extra);
  EXPECT_EQ(restored.state(kB)->extra->find(extra_index("vl_xmit_wait_ticks", 2))->total, 4242u);
}

TEST(StateFileSchema, CountersAreRestoredByNameNotByPosition) {
  const auto t = topology({kA, kB});
  std::string bytes = encode_state(with_history(t), kPrefix);
  // A version listing VL 3's wait counter where this one lists VL 2's, and the other way round.
  rename(bytes, "vl_xmit_wait_ticks/vl/2/", "vl_xmit_wait_ticks/vl/X/");
  rename(bytes, "vl_xmit_wait_ticks/vl/3/", "vl_xmit_wait_ticks/vl/2/");
  rename(bytes, "vl_xmit_wait_ticks/vl/X/", "vl_xmit_wait_ticks/vl/3/");
  reseal(bytes);
  Converter restored({});
  const auto loaded = apply_state(bytes, t, restored);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->counters_unknown, 0u);
  const auto& extra = restored.state(kB)->extra;
  ASSERT_TRUE(extra);
  EXPECT_EQ(extra->find(extra_index("vl_xmit_wait_ticks", 3))->total, 4242u);
  EXPECT_EQ(extra->find(extra_index("vl_xmit_wait_ticks", 2))->total, 0u);
}

// A version-1 file: the counter table's place held nothing, and the header a fingerprint of
// the counter names (each name, its label value and a newline, then the extra counter count,
// hashed with the file's FNV-1a) at bytes 12-19.
std::string as_version_one(std::string bytes, uint64_t fingerprint) {
  const size_t table = 44 + 2 * 13;
  bytes.erase(table, counter_table_end(bytes, 2) - table);
  bytes[8] = 1;
  bytes.insert(12, std::string(reinterpret_cast<const char*>(&fingerprint), 8));
  reseal(bytes);
  return bytes;
}

uint64_t version_one_fingerprint() {
  std::string names;
  for (const auto& c : schema::counter_table())
    names += std::string(c.name) + std::to_string(c.label_value) + "\n";
  names += std::to_string(schema::extra_counter_count());
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : names) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

TEST(StateFileSchema, AVersionOneFileOfThisSchemaRestoresEverything) {
  const auto t = topology({kA, kB});
  const Converter saved = with_history(t);
  Converter restored({});
  const auto loaded = apply_state(
      as_version_one(encode_state(saved, kPrefix), version_one_fingerprint()), t, restored);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_TRUE(loaded->counters_refused.empty());
  EXPECT_EQ(loaded->ports, 2u);
  EXPECT_EQ(total(restored, kA, CounterId::kSymbolError), 35u);
  EXPECT_EQ(total(restored, kA, CounterId::kXmitData), 6000u);
  EXPECT_EQ(restored.state(kB)->extra->find(extra_index("vl_xmit_wait_ticks", 2))->total, 4242u);
}

TEST(StateFileSchema, AVersionOneFileOfAnotherSchemaKeepsOnlyTheIfIndexNumbers) {
  const auto t = topology({kA, kB});
  Converter restored({});
  const auto loaded = apply_state(
      as_version_one(encode_state(with_history(t), kPrefix), version_one_fingerprint() ^ 1), t,
      restored);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_NE(loaded->counters_refused.find("another counter schema"), std::string::npos);
  EXPECT_EQ(loaded->ports, 0u);
  EXPECT_EQ(restored.port_count(), 0u);
  EXPECT_EQ(restored.if_indexes().find(kA), 1u);
  EXPECT_EQ(restored.if_indexes().find(kB), 2u);
}

}  // namespace
}  // namespace ibpulse::converters
