// Configuration nodes and keys: a YAML file and flags read into an options struct through
// keys declared for it, every value knowing where it was written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ibpulse/base/config_keys.h"

namespace ibpulse {
namespace {

using namespace std::chrono_literals;

struct Inner {
  unsigned window = 8;
  std::chrono::milliseconds timeout{200};
};
struct Options {
  Inner mad;
  std::vector<std::string> names;
  std::vector<ConfigNode> users;
  bool on = false;
};

config::Keys<Inner> inner_keys() {
  return {{{"mad.window", "", ""}, config::number(1, 64, IBPULSE_CONFIG_FIELD(window))},
          {{"mad.timeout", "", ""}, config::duration(IBPULSE_CONFIG_FIELD(timeout))}};
}

config::Keys<Options> keys() {
  config::Keys<Options> out;
  config::nest(out, inner_keys(), IBPULSE_CONFIG_FIELD(mad));
  out.push_back({{"names", "", ""}, config::strings(IBPULSE_CONFIG_FIELD(names))});
  out.push_back({{"on", "", ""}, config::boolean(IBPULSE_CONFIG_FIELD(on))});
  out.push_back({{"users", "", "", true, true}, [](Options& o, const ConfigNode& v) -> Status {
                   for (const ConfigNode* user : v.as_list())
                     o.users.push_back(*user);
                   return Ok{};
                 }});
  return out;
}

class ConfigFile : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  std::string write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  Result<Options> read(const std::string& text, const config::FlagValues& flags = {}) {
    auto root = read_config_file(write(text));
    if (!root) return Error{root.error()};
    Options o;
    if (auto s = config::apply(keys(), o, &*root, flags, " (see --help)"); !s) {
      return Error{s.error()};
    }
    return o;
  }
  std::string path_ = ::testing::TempDir() + "ibpulse-config-test-" + std::to_string(getpid());
};

TEST_F(ConfigFile, NestedMapsAreDottedKeysAndFlagsWin) {
  auto o = read("mad:\n  window: 32\n  timeout: 1m30s\nnames: [a, b]\non: yes\n",
                {{"mad.window", {"16"}}});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->mad.window, 16u);  // the flag
  EXPECT_EQ(o->mad.timeout, 90s);
  EXPECT_EQ(o->names, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(o->on);
}

TEST_F(ConfigFile, ErrorsNameTheFileLineAndKey) {
  auto unknown = read("mad:\n  window: 32\n  windw: 3\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error(), path_ + ":3: unknown key 'mad.windw' (see --help)");
  auto bad = read("on: true\nmad.window: 65\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind(path_ + ":2: mad.window: expected a whole number from 1 to 64", 0),
            0u)
      << bad.error();
  auto list = read("mad:\n  window: [1, 2]\n");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error(), path_ + ":2: mad.window: expected one value, got 2");
  auto syntax = read("mad: {window: 3\n");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().rfind(path_ + ":", 0), 0u) << syntax.error();
  auto not_map = read("- a\n");
  ASSERT_FALSE(not_map.ok());
  EXPECT_EQ(not_map.error(), path_ + ": the configuration must be a map of keys");
}

// A list of maps (SNMPv3 users, rules) stays a tree: each item knows its own line, so that its
// parser can say which one is wrong; nothing travels as re-parsed text.
TEST_F(ConfigFile, ListItemsKeepTheirLines) {
  auto o = read("users:\n  - name: a\n    auth-password: x\n\n  - name: b\n");
  ASSERT_TRUE(o.ok()) << o.error();
  ASSERT_EQ(o->users.size(), 2u);
  EXPECT_EQ(o->users[0].where(), path_ + ":2");
  EXPECT_EQ(o->users[1].where(), path_ + ":5");
  ASSERT_TRUE(o->users[1].is_map());
  ASSERT_NE(o->users[1].find("name"), nullptr);
  EXPECT_EQ(o->users[1].find("name")->text(), "b");
  EXPECT_EQ(o->users[0].find("auth-password")->where(), path_ + ":3");
}

// YAML is UTF-8; yaml-cpp does not check. A name that is not would reach labels and logs.
TEST_F(ConfigFile, TextThatIsNotUtf8IsRefused) {
  auto bad = read("users:\n  - name: x\xf7y\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), path_ + ":1: users: a value is not valid UTF-8 text");
  auto key = read("users:\n  - {n\xc0\xafme: a}\n");  // an overlong '/'
  ASSERT_FALSE(key.ok());
  auto good = read("users:\n  - name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n");
  ASSERT_TRUE(good.ok()) << good.error();
  EXPECT_EQ(good->users.at(0).find("name")->text(), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  Options o;
  auto flag = config::apply(keys(), o, nullptr, {{"names", {"a\xed\xa0\x80"}}}, "");  // a surrogate
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.error(), "--names: a value is not valid UTF-8 text");
}

TEST_F(ConfigFile, AnEmptyFileSetsNothing) {
  auto o = read("");
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->mad.window, 8u);
}

TEST(ConfigFlags, AFlagMapIsParsedAndPlainTextIsKept) {
  Options o;
  const config::FlagValues flags = {
      {"users", {R"({"name": "a", "auth-password": "x,y"})", "{name: b}"}},
      {"names", {"a: b", "[::]:161"}}};
  ASSERT_TRUE(config::apply(keys(), o, nullptr, flags, "").ok());
  ASSERT_EQ(o.users.size(), 2u);
  EXPECT_EQ(o.users[0].find("auth-password")->text(), "x,y");
  EXPECT_EQ(o.users[1].find("name")->text(), "b");
  EXPECT_EQ(o.users[1].where(), "--users");
  // Not YAML: the text itself (an IPv6 address is no list).
  EXPECT_EQ(o.names, (std::vector<std::string>{"a: b", "[::]:161"}));
}

TEST(ConfigFlags, ErrorsNameTheFlag) {
  Options o;
  auto bad = config::apply(keys(), o, nullptr, {{"mad.timeout", {"0.5ms"}}}, "");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("--mad.timeout: ", 0), 0u) << bad.error();
  auto broken = config::apply(keys(), o, nullptr, {{"users", {"{name: a"}}}, "");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().rfind("--users: ", 0), 0u) << broken.error();
  auto unknown = config::apply(keys(), o, nullptr, {{"nope", {"1"}}}, "");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error(), "--nope: not a configuration key");
}

TEST(ConfigKeys, ChoiceListsWhatItTakes) {
  enum class Mode { kA, kB, kC };
  Mode mode = Mode::kA;
  auto set = config::choice(
      std::vector<std::pair<std::string, Mode>>{{"a", Mode::kA}, {"b", Mode::kB}, {"c", Mode::kC}},
      [&mode](auto&) -> Mode& { return mode; });
  int unused = 0;
  EXPECT_TRUE(set(unused, ConfigNode::scalar("c", "--m")).ok());
  EXPECT_EQ(mode, Mode::kC);
  auto bad = set(unused, ConfigNode::scalar("d", "--m"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "expected a, b or c, got 'd'");
}

}  // namespace
}  // namespace ibpulse
