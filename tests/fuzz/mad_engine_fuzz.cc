// MAD replies through the engine itself, over the scripted HCA port of the unit tests
// (tests/unit/scripted_umad.h): the input says which sent MAD each reply answers, when it
// arrives, its MAD and umad status, its length, and a header byte changed (method, class,
// attribute, anything but the TID). Checked: every request completes exactly once, and a
// successful one carries data sent for its own port; the engine's statistics add up.
//
// Input: records of 6 bytes: [sent MAD index] [flags] [status hi] [status lo] [header offset]
// [value]. Flags: bit 0 the reply is `value` bytes long; bit 1 umad status 110 (returned
// undelivered); bits 2-4 delay in 5 ms steps; bit 5 header byte `offset` set to `value`.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scripted_umad.h"

namespace {

using namespace ibpulse::collector;
using std::chrono::milliseconds;

constexpr size_t kRecord = 6;
constexpr uint8_t kRequests = 6;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  testing::ScriptedEngine scripted(
      {.window = 4, .per_node = 2, .timeout = milliseconds(10), .retries = 2});
  testing::ScriptedUmad& umad = *scripted.umad;
  MadEngine& engine = *scripted.engine;
  for (uint8_t i = 0; i < kRequests; ++i) {
    MadRequest r;
    r.lid = static_cast<uint16_t>(1 + i / 2);
    r.node = i / 2u;
    r.attribute = 0x0012;
    r.data[1] = i;  // PortSelect: which request the data belongs to
    r.cookie = i;
    engine.submit(r);
  }
  std::vector<int> completed(kRequests, 0);
  size_t succeeded = 0;
  const CompletionFn on_done = [&](const MadCompletion& c) {
    check(c.cookie < kRequests);
    ++completed[c.cookie];
    if (c.failure == MadFailure::kNone) {
      check(c.data.size() == kMadDataSize && c.data[1] == c.cookie);
      ++succeeded;
    }
  };
  for (size_t at = 0; at + kRecord <= size && !engine.idle(); at += kRecord) {
    const uint8_t* rec = data + at;
    if (!umad.sent().empty()) {
      const auto& sent = umad.sent()[rec[0] % umad.sent().size()];
      const uint16_t status = static_cast<uint16_t>(rec[2] << 8 | rec[3]);
      auto& reply = umad.answer(sent, milliseconds(5 * (rec[1] >> 2 & 7)), status);
      if (rec[1] & 1) reply.length = rec[5];
      if (rec[1] & 2) reply.umad_status = 110;
      const size_t offset = rec[4] % 24;
      if (rec[1] & 0x20 && (offset < 12 || offset > 15)) reply.mad[offset] = rec[5];
    }
    engine.poll(milliseconds(5), on_done);
  }
  drain(engine, on_done);
  for (const int n : completed)
    check(n == 1);
  const MadStats& stats = engine.stats();
  check(stats.failed_total() + succeeded == kRequests);
  check(stats.sent >= kRequests - stats.failed_for(MadFailure::kSendError));
  return 0;
}
