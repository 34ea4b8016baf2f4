// Durations and numbers as operators write them: what is accepted, and what is refused with a
// message rather than rounded or wrapped.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "ibpulse/base/atomic_file.h"
#include "ibpulse/base/check.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/base/number.h"

namespace ibpulse {
namespace {

using std::chrono::milliseconds;

TEST(Duration, TakesWholeMillisecondsInEveryUnit) {
  EXPECT_EQ(*parse_duration("500ms"), milliseconds(500));
  EXPECT_EQ(*parse_duration("2.5s"), milliseconds(2500));
  EXPECT_EQ(*parse_duration("0.001s"), milliseconds(1));
  EXPECT_EQ(*parse_duration("1.5m"), milliseconds(90000));
  EXPECT_EQ(*parse_duration("1h"), milliseconds(3600000));
  EXPECT_EQ(*parse_duration("3"), milliseconds(3000));  // plain seconds
}

TEST(Duration, TakesPrometheusCompoundForms) {
  EXPECT_EQ(*parse_duration("1m30s"), milliseconds(90000));
  EXPECT_EQ(*parse_duration("1h5m"), milliseconds(3900000));
  EXPECT_EQ(*parse_duration("2s500ms"), milliseconds(2500));
  EXPECT_EQ(*parse_duration("1h1m1s1ms"), milliseconds(3661001));
  EXPECT_EQ(*parse_duration("23h59m"), milliseconds(86340000));
  for (const char* bad : {"30s1m", "1m1m", "1ms1s", "25h1m", "1m30", "1.5m30s", "1m 30s"}) {
    EXPECT_FALSE(parse_duration(bad).ok()) << bad;
  }
  EXPECT_NE(parse_duration("30s1m").error().find("largest down"), std::string::npos);
}

TEST(Duration, RefusesWhatWouldRoundToSomethingElse) {
  for (const char* bad : {"0.4ms", "1.5ms", "0.0004s", "0", "0s", "-1s", "", "ms", "1d", "25h"}) {
    const auto d = parse_duration(bad);
    ASSERT_FALSE(d) << bad << " gave " << d->count() << " ms";
    EXPECT_NE(d.error().find(std::string("'") + bad + "'"), std::string::npos) << d.error();
  }
  EXPECT_NE(parse_duration("0.4ms").error().find("whole number of milliseconds"),
            std::string::npos);
}

TEST(Duration, ShortDurationsAreWholeNanosecondsUpToASecond) {
  using std::chrono::nanoseconds;
  EXPECT_EQ(*parse_short_duration("4ns"), nanoseconds(4));
  EXPECT_EQ(*parse_short_duration("2.5us"), nanoseconds(2500));
  EXPECT_EQ(*parse_short_duration("1ms"), nanoseconds(1'000'000));
  EXPECT_EQ(*parse_short_duration("0.5s"), nanoseconds(500'000'000));
  for (const char* bad : {"4", "0.5ns", "0ns", "-4ns", "2s", "ns", "", "4 ns", "4ps"}) {
    const auto d = parse_short_duration(bad);
    ASSERT_FALSE(d) << bad << " gave " << d->count() << " ns";
    EXPECT_NE(d.error().find(std::string("'") + bad + "'"), std::string::npos) << d.error();
  }
}

// A simulated clock's period keeps its fraction of a nanosecond; the same words otherwise.
TEST(Duration, ShortPeriodsKeepFractionsOfANanosecond) {
  EXPECT_EQ(*parse_short_period_ns("2.5ns"), 2.5);
  EXPECT_EQ(*parse_short_period_ns("1us"), 1000.0);
  EXPECT_EQ(*parse_short_period_ns("1s"), 1e9);
  for (const char* bad : {"4", "0ns", "-4ns", "1.5s", "infns", "4 ns", ""}) {
    const auto ns = parse_short_period_ns(bad);
    ASSERT_FALSE(ns) << bad << " gave " << *ns;
    EXPECT_NE(ns.error().find(std::string("'") + bad + "'"), std::string::npos) << ns.error();
  }
}

TEST(Duration, ASettingsMinimumIsNamedInTheError) {
  EXPECT_EQ(*parse_duration("10ms", milliseconds(10)), milliseconds(10));
  const auto d = parse_duration("5ms", milliseconds(10));
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().find("10ms"), std::string::npos) << d.error();
}

TEST(Number, TakesDecimalAndHex) {
  EXPECT_EQ(*parse_unsigned("0"), 0u);
  EXPECT_EQ(*parse_unsigned("4096"), 4096u);
  EXPECT_EQ(*parse_unsigned("0x1000"), 4096u);
  EXPECT_EQ(*parse_unsigned("0XfF"), 255u);
  EXPECT_EQ(*parse_unsigned("0x0"), 0u);
  EXPECT_EQ(*parse_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*parse_unsigned("0xffffffffffffffff"), UINT64_MAX);
}

TEST(Number, RefusesSignsOctalAndOverflow) {
  for (const char* bad : {"-1", "+1", "0777", "00", " 1", "1 ", "0x", "", "1e3", "0x1g",
                          "18446744073709551616", "0x10000000000000000"}) {
    const auto n = parse_unsigned(bad);
    ASSERT_FALSE(n) << bad << " gave " << *n;
    EXPECT_NE(n.error().find(std::string("'") + bad + "'"), std::string::npos) << n.error();
  }
  EXPECT_NE(parse_unsigned("0777").error().find("octal"), std::string::npos);
  EXPECT_NE(parse_unsigned("18446744073709551616").error().find("64 bits"), std::string::npos);
}

TEST(Number, HoldsToItsRange) {
  EXPECT_EQ(*parse_unsigned("256", 1, 256), 256u);
  EXPECT_FALSE(parse_unsigned("257", 1, 256));
  EXPECT_FALSE(parse_unsigned("0", 1, 256));
}

// The tests are built as the daemon is (Release, NDEBUG): the check must still stop the process.
TEST(CheckDeathTest, ABrokenInvariantStopsTheProcessInEveryBuild) {
  const int stale = 7;
  EXPECT_DEATH(IBPULSE_CHECK(stale < 3, "port index {} of {}", stale, 3),
               "internal error: check 'stale < 3' failed at .*base_test.cc:[0-9]+: port index 7 "
               "of 3");
  EXPECT_DEATH(IBPULSE_CHECK(stale == 0), "check 'stale == 0' failed");
  IBPULSE_CHECK(stale == 7, "holds: {}", "nothing happens");
}

TEST(CheckDeathTest, AFailedResultsValueIsACheckNotAnException) {
  const Result<int> failed = Error{"no such port"};
  EXPECT_DEATH((void)*failed, "the value of a failed result: no such port");
}

#ifdef NDEBUG
TEST(Check, ADebugCheckIsCompiledOutOfReleaseBuilds) {
  int evaluated = 0;
  IBPULSE_DCHECK(++evaluated < 0);
  EXPECT_EQ(evaluated, 0);
}
#endif

TEST(LogText, AQuotedFieldCannotBeEndedOrSplitFromInside) {
  // A node description as a switch vendor or an attacker could set it.
  const std::string hostile = "leaf\" event=fake x=\"1\nsecond line\\\t\x1b[31m";
  const std::string line = fmt::format("event=link_down node=\"{}\"", log_text(hostile));
  EXPECT_EQ(line,
            "event=link_down node=\"leaf\\\" event=fake x=\\\"1\\nsecond line\\\\\\t"
            "\\x1b[31m\"");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(escape_log_text("plain text, UTF-8: µs"), "plain text, UTF-8: µs");
  EXPECT_EQ(escape_log_text(std::string("a\0b\x7f", 4)), "a\\x00b\\x7f");
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ibpulse-atomic-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(AtomicFile, ReplacesTheWholeFileAndLeavesNoTemporary) {
  const auto path = dir_ / "engine-boots";
  ASSERT_TRUE(write_file_atomically(path, "a much longer first content\n"));
  ASSERT_TRUE(write_file_atomically(path, std::string("2\0x", 3)));
  EXPECT_EQ(read_file(path), std::string("2\0x", 3));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(AtomicFile, AFailureNamesThePathAndLeavesTheOldFile) {
  const auto missing = write_file_atomically(dir_ / "no-such-dir" / "x", "y");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("no-such-dir"), std::string::npos) << missing.error();
  // A directory where the file should be: the rename fails, nothing else changes.
  std::filesystem::create_directories(dir_ / "taken");
  const auto taken = write_file_atomically(dir_ / "taken", "y");
  ASSERT_FALSE(taken);
  EXPECT_NE(taken.error().find("cannot rename"), std::string::npos) << taken.error();
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "taken"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

// A file another writer made (libibnetdisc's discovery cache) is moved over the old one whole.
TEST_F(AtomicFile, AFileWrittenElsewhereReplacesTheOldOneWhole) {
  const auto path = dir_ / "fabric.cache";
  ASSERT_TRUE(write_file_atomically(path, "old"));
  const auto written = dir_ / "fabric.cache.tmp";
  std::ofstream(written) << "new content";
  ASSERT_TRUE(replace_file_durably(written, path));
  EXPECT_EQ(read_file(path), "new content");
  EXPECT_FALSE(std::filesystem::exists(written));
  const auto missing = replace_file_durably(dir_ / "none", path);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("none"), std::string::npos) << missing.error();
  EXPECT_EQ(read_file(path), "new content") << "an error changes nothing";
}

TEST_F(AtomicFile, TwoWritersEachLeaveAWholeFile) {
  const auto path = dir_ / "state.json";
  const std::string a(100000, 'a');
  const std::string b(50000, 'b');
  std::vector<std::thread> writers;
  for (const std::string* text : {&a, &b}) {
    writers.emplace_back([&, text] {
      for (int i = 0; i < 50; ++i)
        ASSERT_TRUE(write_file_atomically(path, *text));
    });
  }
  for (auto& w : writers)
    w.join();
  const std::string got = read_file(path);
  EXPECT_TRUE(got == a || got == b) << got.size() << " bytes";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

// One reading of booleans and GUIDs for flags, configuration files and rule files.
TEST(Scalars, BooleansAndGuidsReadOneWay) {
  for (const char* yes : {"true", "yes", "on", "1", "TRUE", "Yes", "On"}) {
    ASSERT_TRUE(parse_bool(yes).ok()) << yes;
    EXPECT_TRUE(*parse_bool(yes)) << yes;
  }
  for (const char* no : {"false", "no", "off", "0", "False", "OFF"}) {
    ASSERT_TRUE(parse_bool(no).ok()) << no;
    EXPECT_FALSE(*parse_bool(no)) << no;
  }
  for (const char* bad : {"", "2", "y", "enabled", " true"}) {
    ASSERT_FALSE(parse_bool(bad).ok()) << bad;
    EXPECT_NE(parse_bool(bad).error().find("expected true or false"), std::string::npos);
  }
  EXPECT_EQ(*parse_guid("0x0002c90300000001"), 0x0002c90300000001u);
  EXPECT_EQ(*parse_guid("0XFFFFFFFFFFFFFFFF"), UINT64_MAX);
  for (const char* bad : {"0x", "0x0", "0", "0x12zz", "0x10000000000000000", "guid"}) {
    ASSERT_FALSE(parse_guid(bad).ok()) << bad;
    EXPECT_NE(parse_guid(bad).error().find("bad GUID"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace ibpulse
