#pragma once
// Lowers the calling thread's CPU priority (its nice value, which Linux keeps per thread), for
// work that must never hold up polling: exporting snapshots (remote write) yields the CPU to
// the poller, the converter and, on the simulator, ibsim itself, and takes what they leave.
//
// Thread safety: changes only the calling thread.

namespace ibpulse {

// Nice value for background work: 10 weighs about a tenth of a default thread when both want
// the same CPU, and nothing when the CPU is free.
inline constexpr int kBackgroundNice = 10;

// Sets the calling thread's nice value to `nice` (raising it needs no privilege). False when
// the kernel refused; the thread then keeps its priority, which is only slower, never wrong.
bool lower_this_thread_priority(int nice = kBackgroundNice);

}  // namespace ibpulse
