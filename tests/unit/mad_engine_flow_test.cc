// The MAD engine's flow over a scripted HCA port (scripted_umad.h): the window, the per-node
// limit, the order requests leave in, and values under heavy loss and reordering.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "scripted_umad.h"

namespace ibpulse::collector {
namespace {

using std::chrono::milliseconds;
using testing::SentMad;

constexpr milliseconds kTimeout{100};

using Rig = testing::ScriptedEngine;

MadRequest get(uint16_t lid, uint8_t port, uint64_t cookie) {
  MadRequest r;
  r.lid = lid;
  r.node = lid;  // one node per LID here
  r.attribute = 0x0012;
  r.data[1] = port;
  r.cookie = cookie;
  return r;
}

uint64_t cookie_of(const SentMad& s) {
  return uint64_t{s.to.lid} << 8 | s.data()[1];
}

TEST(MadEngineFlow, NoNodeHasMoreThanItsLimitInFlightAndTheWindowIsNeverExceeded) {
  Rig rig({.window = 8, .per_node = 3, .timeout = kTimeout, .retries = 3});
  std::map<uint16_t, int> in_flight;
  int total = 0;
  int most_total = 0;
  std::map<uint16_t, int> most;
  rig.umad->on_send = [&](const SentMad& s) {
    most[s.to.lid] = std::max(most[s.to.lid], ++in_flight[s.to.lid]);
    most_total = std::max(most_total, ++total);
    rig.umad->answer(s, milliseconds(1 + s.to.lid % 4));
  };
  for (uint16_t lid = 1; lid <= 5; ++lid) {
    for (uint8_t port = 1; port <= 20; ++port)
      rig.engine->submit(get(lid, port, uint64_t{lid} << 8 | port));
  }
  size_t completed = 0;
  while (!rig.engine->idle()) {
    rig.engine->poll(milliseconds(10), [&](const MadCompletion& c) {
      EXPECT_EQ(c.failure, MadFailure::kNone);
      --in_flight[static_cast<uint16_t>(c.cookie >> 8)];
      --total;
      ++completed;
    });
  }
  EXPECT_EQ(completed, 100u);
  EXPECT_EQ(most_total, 8);  // reached, never passed
  for (uint16_t lid = 1; lid <= 5; ++lid)
    EXPECT_LE(most[lid], 3) << "LID " << lid;
}

// A switch with many ports queued cannot take the whole window: the node's limit lets a
// request to another node, submitted last, out second.
TEST(MadEngineFlow, ANodeWithALongQueueDoesNotHoldBackAnother) {
  Rig rig({.window = 4, .per_node = 1, .timeout = kTimeout, .retries = 3});
  rig.umad->on_send = [&](const SentMad& s) { rig.umad->answer(s, milliseconds(5)); };
  for (uint8_t port = 1; port <= 10; ++port)
    rig.engine->submit(get(1, port, port));
  rig.engine->submit(get(2, 1, 99));
  drain(*rig.engine, [](const MadCompletion&) {});
  ASSERT_EQ(rig.umad->sent().size(), 11u);
  EXPECT_EQ(rig.umad->sent()[1].to.lid, 2);
  for (size_t i = 2; i < 11; ++i)  // node 1's in the order submitted
    EXPECT_EQ(rig.umad->sent()[i].data()[1], i) << i;
}

TEST(MadEngineFlow, ARetryGoesFirstInItsNodesLine) {
  Rig rig({.window = 4, .per_node = 1, .timeout = kTimeout, .retries = 3});
  rig.umad->on_send = [&](const SentMad& s) {
    if (rig.umad->sent().size() > 1) rig.umad->answer(s, milliseconds(1));  // the first is lost
  };
  rig.engine->submit(get(1, 1, 1));
  rig.engine->submit(get(1, 2, 2));
  drain(*rig.engine, [](const MadCompletion& c) { EXPECT_EQ(c.failure, MadFailure::kNone); });
  ASSERT_EQ(rig.umad->sent().size(), 3u);
  EXPECT_EQ(rig.umad->sent()[1].data()[1], 1);  // the retry of port 1 before port 2
  EXPECT_EQ(rig.umad->sent()[1].timeout, kTimeout * 2);
  EXPECT_EQ(rig.umad->sent()[2].data()[1], 2);
}

// Half of all answers lost, the rest late (up to three timeouts), out of order, some twice:
// every request either fails or carries the answer to its own last attempt.
TEST(MadEngineFlow, UnderHalfTheAnswersLostAndTheRestReorderedNoValueLandsOnAnotherPort) {
  Rig rig({.window = 64, .per_node = 8, .timeout = kTimeout, .retries = 6});
  std::mt19937 random(1234);
  std::map<uint64_t, uint32_t> last_tid;  // by request
  rig.umad->on_send = [&](const SentMad& s) {
    last_tid[cookie_of(s)] = s.tid();
    if (random() % 2 == 0) return;  // lost
    std::vector<uint8_t> data(s.data(), s.data() + kMadDataSize);
    for (size_t i = 0; i < 4; ++i)  // the answer names the attempt it is to
      data[8 + i] = static_cast<uint8_t>(s.tid() >> (24 - 8 * i));
    const milliseconds delay(random() % (3 * kTimeout.count()));
    rig.umad->answer(s, delay, 0, data);
    if (random() % 8 == 0) rig.umad->answer(s, delay + milliseconds(random() % 50), 0, data);
  };
  constexpr size_t kLids = 20;
  constexpr size_t kPorts = 25;
  for (uint16_t lid = 1; lid <= kLids; ++lid) {
    for (uint8_t port = 1; port <= kPorts; ++port)
      rig.engine->submit(get(lid, port, uint64_t{lid} << 8 | port));
  }
  size_t answered = 0;
  size_t failed = 0;
  drain(*rig.engine, [&](const MadCompletion& c) {
    if (c.failure != MadFailure::kNone) {
      EXPECT_EQ(c.failure, MadFailure::kTimeout);
      ++failed;
      return;
    }
    ++answered;
    ASSERT_EQ(c.data.size(), kMadDataSize);
    EXPECT_EQ(c.data[1], c.cookie & 0xff) << "another port's answer";
    const uint32_t tid = testing::be32(c.data.data() + 8);
    EXPECT_EQ(tid, last_tid.at(c.cookie)) << "an earlier attempt's answer";
  });
  EXPECT_EQ(answered + failed, kLids * kPorts);
  EXPECT_GT(answered, kLids * kPorts * 9 / 10);
  EXPECT_GT(rig.engine->stats().stale_replies, 100u);  // the late answers did arrive
  EXPECT_EQ(rig.engine->stats().answered, answered);
}

}  // namespace
}  // namespace ibpulse::collector
