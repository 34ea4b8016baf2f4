// The MAD engine (collector/src/mad_engine.cc) over a scripted HCA port (scripted_umad.h): what
// it sends, and what it makes of late, lost, short, busy, redirected and refused replies.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "scripted_umad.h"

namespace ibpulse::collector {
namespace {

using std::chrono::milliseconds;
using testing::ScriptedReply;
using testing::SentMad;

constexpr uint16_t kPortCounters = 0x0012;
constexpr milliseconds kTimeout{100};

// A completion with its data copied out (MadCompletion's data lives for the callback only).
struct Done {
  uint64_t cookie = 0;
  MadFailure failure = MadFailure::kNone;
  uint16_t mad_status = 0;
  unsigned attempts = 0;
  std::vector<uint8_t> data;
};

struct Rig : testing::ScriptedEngine {
  std::vector<Done> done;

  explicit Rig(const MadEngineOptions& options = {}) : ScriptedEngine(options) {}
  void run() {
    drain(*engine, [this](const MadCompletion& c) {
      done.push_back(
          {c.cookie, c.failure, c.mad_status, c.attempts, {c.data.begin(), c.data.end()}});
    });
  }
  const MadStats& stats() const { return engine->stats(); }
};

MadRequest port_counters(uint16_t lid, uint8_t port, uint32_t node, uint64_t cookie) {
  MadRequest r;
  r.lid = lid;
  r.node = node;
  r.attribute = kPortCounters;
  r.data[1] = port;  // PortSelect
  r.cookie = cookie;
  return r;
}

// Attribute data naming what it answers: `tag` in bytes 8.. (the counters' place).
std::vector<uint8_t> tagged(const SentMad& sent, uint32_t tag) {
  std::vector<uint8_t> d(sent.data(), sent.data() + kMadDataSize);
  for (size_t i = 0; i < 4; ++i)
    d[8 + i] = static_cast<uint8_t>(tag >> (24 - 8 * i));
  return d;
}
uint32_t tag_of(const std::vector<uint8_t>& data) {
  return testing::be32(data.data() + 8);
}

TEST(MadEngine, AGetGoesToItsLidsPmaAndItsAnswerComesBackWithTheCookie) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) {
    rig.umad->answer(s, milliseconds(3), 0, tagged(s, 0xC0FFEE));
  };
  MadRequest r = port_counters(17, 5, 0, 42);
  r.modifier = 0x1234;
  rig.engine->submit(r);
  rig.run();

  ASSERT_EQ(rig.umad->sent().size(), 1u);
  const SentMad& s = rig.umad->sent()[0];
  EXPECT_EQ(s.to.lid, 17);
  EXPECT_EQ(s.to.qp, 1);
  EXPECT_EQ(static_cast<uint32_t>(s.to.q_key), 0x80010000u);  // QP1's well-known Q_Key
  EXPECT_EQ(s.timeout, MadEngineOptions{}.timeout);
  EXPECT_EQ(s.mad[0], 1);  // base version
  EXPECT_EQ(s.mgmt_class(), 0x04);
  EXPECT_EQ(s.mad[2], 1);  // class version
  EXPECT_EQ(s.method(), 0x01);
  EXPECT_EQ(s.attribute(), kPortCounters);
  EXPECT_EQ(s.modifier(), 0x1234u);
  EXPECT_EQ(s.data()[1], 5);

  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].cookie, 42u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kNone);
  EXPECT_EQ(rig.done[0].attempts, 1u);
  ASSERT_EQ(rig.done[0].data.size(), kMadDataSize);
  EXPECT_EQ(tag_of(rig.done[0].data), 0xC0FFEEu);
  EXPECT_EQ(rig.stats().sent, 1u);
  EXPECT_EQ(rig.stats().answered, 1u);
  EXPECT_EQ(rig.stats().failed_total(), 0u);
}

// One window slot, so the retry reuses the first attempt's slot: only the TID's sequence bits
// tell the first attempt's late answer from the retry's.
TEST(MadEngine, ALateAnswerToAnEarlierAttemptIsNeverCreditedToTheRetry) {
  Rig rig({.window = 1, .per_node = 1, .timeout = kTimeout, .retries = 3});
  rig.umad->on_send = [&](const SentMad& s) {
    if (rig.umad->sent().size() == 1) {
      rig.umad->answer(s, kTimeout * 3 / 2, 0, tagged(s, 1));  // after its deadline
    } else {
      rig.umad->answer(s, kTimeout * 9 / 10, 0, tagged(s, 2));  // after the late one
    }
  };
  rig.engine->submit(port_counters(3, 1, 0, 7));
  rig.run();

  ASSERT_EQ(rig.umad->sent().size(), 2u);
  EXPECT_NE(rig.umad->sent()[0].tid(), rig.umad->sent()[1].tid());
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kNone);
  EXPECT_EQ(rig.done[0].attempts, 2u);
  EXPECT_EQ(tag_of(rig.done[0].data), 2u);
  EXPECT_EQ(rig.stats().stale_replies, 1u);
  EXPECT_EQ(rig.stats().attempt_timeouts, 1u);
  EXPECT_EQ(rig.stats().retried, 1u);
  EXPECT_EQ(rig.stats().answered, 1u);
}

// The first request's two attempts (sent at 0 and 100 ms, given up at 300 ms) are answered at
// 350 and 360 ms, while the second request (sent at 300 ms, answered at 380 ms) is in flight
// in the same window slot.
TEST(MadEngine, AnswersAfterTheLastAttemptGaveUpAreStaleAndTheNextRequestGetsItsOwn) {
  Rig rig({.window = 1, .per_node = 1, .timeout = kTimeout, .retries = 1});
  rig.umad->on_send = [&](const SentMad& s) {
    const size_t n = rig.umad->sent().size();
    const milliseconds delay = n == 1   ? milliseconds(350)
                               : n == 2 ? milliseconds(260)
                                        : milliseconds(80);
    rig.umad->answer(s, delay, 0, tagged(s, s.data()[1]));
  };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kTimeout);
  EXPECT_EQ(rig.done[0].attempts, 2u);
  EXPECT_EQ(rig.stats().failed_for(MadFailure::kTimeout), 1u);

  rig.engine->submit(port_counters(3, 2, 0, 2));
  rig.run();
  ASSERT_EQ(rig.done.size(), 2u);
  EXPECT_EQ(rig.done[1].cookie, 2u);
  EXPECT_EQ(rig.done[1].failure, MadFailure::kNone);
  EXPECT_EQ(rig.done[1].attempts, 1u);
  EXPECT_EQ(tag_of(rig.done[1].data), 2u);
  EXPECT_EQ(rig.stats().stale_replies, 2u);
  EXPECT_EQ(rig.umad->replies_pending(), 0u);
}

TEST(MadEngine, BusyIsAskedAgainUntilAnswered) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) {
    const bool busy = rig.umad->sent().size() <= 2;
    rig.umad->answer(s, milliseconds(2), busy ? 0x0001 : 0, tagged(s, 9));
  };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kNone);
  EXPECT_EQ(rig.done[0].attempts, 3u);
  EXPECT_EQ(rig.stats().answered, 3u);
  EXPECT_EQ(rig.stats().retried, 2u);
}

TEST(MadEngine, AlwaysBusyFailsAsATimeoutAfterEveryRetry) {
  Rig rig({.timeout = kTimeout, .retries = 2});
  rig.umad->on_send = [&](const SentMad& s) { rig.umad->answer(s, milliseconds(2), 0x0001); };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kTimeout);
  EXPECT_EQ(rig.done[0].attempts, 3u);
  EXPECT_EQ(rig.umad->sent().size(), 3u);
  EXPECT_EQ(rig.stats().failed_for(MadFailure::kTimeout), 1u);
}

TEST(MadEngine, ARedirectFailsAtOnceWithItsStatus) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) { rig.umad->answer(s, milliseconds(2), 0x0002); };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kRedirect);
  EXPECT_EQ(rig.done[0].mad_status, 0x0002);
  EXPECT_TRUE(rig.done[0].data.empty());
  EXPECT_EQ(rig.umad->sent().size(), 1u);
  EXPECT_EQ(rig.stats().failed_for(MadFailure::kRedirect), 1u);
}

TEST(MadEngine, AnErrorStatusFailsAtOnceAndIsNotAskedAgain) {
  Rig rig;
  // Unsupported attribute: invalid field code 3 in bits 2-4.
  rig.umad->on_send = [&](const SentMad& s) { rig.umad->answer(s, milliseconds(2), 0x000C); };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kStatus);
  EXPECT_EQ(rig.done[0].mad_status, 0x000C);
  EXPECT_EQ(rig.umad->sent().size(), 1u);
  EXPECT_EQ(rig.stats().failed_for(MadFailure::kStatus), 1u);
}

TEST(MadEngine, ARequestReturnedUndeliveredIsRetriedThenUnreachable) {
  Rig rig({.timeout = kTimeout, .retries = 2});
  rig.umad->on_send = [&](const SentMad& s) {
    rig.umad->answer(s, milliseconds(1)).umad_status = 110;
  };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kUnreachable);
  EXPECT_EQ(rig.done[0].attempts, 3u);
  EXPECT_EQ(rig.stats().attempt_unreachable, 3u);
  EXPECT_EQ(rig.stats().answered, 0u);
  EXPECT_EQ(rig.stats().failed_for(MadFailure::kUnreachable), 1u);
}

TEST(MadEngine, AShortReplyIsDroppedAndTheRequestAskedAgain) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) {
    ScriptedReply& r = rig.umad->answer(s, milliseconds(1), 0,
                                        tagged(s, static_cast<uint32_t>(rig.umad->sent().size())));
    if (rig.umad->sent().size() == 1) r.length = 100;
  };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kNone);
  EXPECT_EQ(rig.done[0].attempts, 2u);
  EXPECT_EQ(tag_of(rig.done[0].data), 2u);
  EXPECT_EQ(rig.stats().malformed_replies, 1u);
  EXPECT_EQ(rig.stats().attempt_timeouts, 1u);
}

TEST(MadEngine, AReplyUnderOurTidForAnotherAttributeIsNotTheAnswer) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) {
    ScriptedReply& r = rig.umad->answer(s, milliseconds(1), 0,
                                        tagged(s, static_cast<uint32_t>(rig.umad->sent().size())));
    if (rig.umad->sent().size() == 1) r.mad[17] = 0x1D;  // PortCountersExtended
  };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kNone);
  EXPECT_EQ(tag_of(rig.done[0].data), 2u);
  EXPECT_EQ(rig.stats().malformed_replies, 1u);
}

// A port holding the SM role (the simulator's SIM_SET_ISSM) is handed the PMA requests to its
// own node that ibsim does not answer: ours, TID and attribute included, but no answer.
TEST(MadEngine, OurOwnRequestHandedBackIsNotItsAnswer) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) {
    ScriptedReply& r = rig.umad->answer(s, milliseconds(1), 0,
                                        tagged(s, static_cast<uint32_t>(rig.umad->sent().size())));
    if (rig.umad->sent().size() == 1) r.mad[3] = s.method();  // the Get itself
  };
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kNone);
  EXPECT_EQ(rig.done[0].attempts, 2u);
  EXPECT_EQ(tag_of(rig.done[0].data), 2u) << "the second attempt's answer";
  EXPECT_EQ(rig.stats().malformed_replies, 1u);
  EXPECT_EQ(rig.stats().answered, 1u);
}

TEST(MadEngine, AFailedSendFailsTheRequestWithoutRetrying) {
  Rig rig;
  rig.umad->fail_sends = true;
  rig.engine->submit(port_counters(3, 1, 0, 1));
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kSendError);
  EXPECT_EQ(rig.stats().sent, 0u);
  EXPECT_EQ(rig.stats().failed_for(MadFailure::kSendError), 1u);
}

TEST(MadEngine, SmpsNeedTheirClassAndGoToQp0WithTheirMKey) {
  Rig rig;
  rig.umad->on_send = [&](const SentMad& s) { rig.umad->answer(s, milliseconds(1)); };
  MadRequest smp = port_counters(9, 0, 0, 1);
  smp.mgmt_class = MadClass::kSubnetLid;
  smp.attribute = 0x0015;  // PortInfo
  smp.m_key = 0x0102030405060708;
  rig.engine->submit(smp);
  rig.run();
  ASSERT_EQ(rig.done.size(), 1u);
  EXPECT_EQ(rig.done[0].failure, MadFailure::kSendError);  // the class is not enabled

  ASSERT_TRUE(rig.engine->enable_smp(true).ok());
  EXPECT_TRUE(rig.umad->registered(0x01));
  smp.cookie = 2;
  rig.engine->submit(smp);
  rig.run();
  ASSERT_EQ(rig.done.size(), 2u);
  EXPECT_EQ(rig.done[1].failure, MadFailure::kNone);
  ASSERT_EQ(rig.umad->sent().size(), 1u);
  const SentMad& s = rig.umad->sent()[0];
  EXPECT_EQ(s.to.qp, 0);
  EXPECT_EQ(s.to.q_key, 0);
  EXPECT_EQ(s.mgmt_class(), 0x01);
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(s.mad[24 + i], i + 1) << "M_Key byte " << i;

  ASSERT_TRUE(rig.engine->enable_smp(false).ok());
  EXPECT_FALSE(rig.umad->registered(0x01));
  EXPECT_TRUE(rig.umad->registered(0x04));
}

TEST(MadEngine, AnSmpClassThatCannotBeRegisteredIsAnError) {
  Rig rig;
  rig.umad->refused_classes = {0x01};
  EXPECT_FALSE(rig.engine->enable_smp(true).ok());
  EXPECT_FALSE(rig.engine->smp_enabled());
}

}  // namespace
}  // namespace ibpulse::collector
