#pragma once
// Lowers the calling thread's CPU priority (its nice value, which Linux keeps per thread), for
// work that must never hold up polling: exporting snapshots (remote write) yields the CPU to
// the poller, the converter and, on the simulator, ibsim itself, and takes what they leave.
//
// Thread safety: changes only the calling thread.

namespace ibpulse {

// Nice value for background work: 19 (the lowest) weighs 15 against a default thread's 1,024
// when both want the same CPU, and nothing when the CPU is free. Nice 10 (110) was not low
// enough: on a core the poller and umad2sim keep 90% busy, the remote-write reader at nice 10
// took 8% of it rendering every sample of a 70,000-port fabric and the poller answered 0.85x
// the MADs a raw client does; at nice 19 the reader took 3% and the poller 1.02x
// (bench/run_scale_bench). SCHED_IDLE did as well (3%, 0.98x), but a thread under it that is
// preempted holding a lock the converter needs (a malloc arena's, when it frees a snapshot)
// waits for its next turn, which on a busy core comes about every 250 ms by the scheduler's
// arithmetic (a 0.75 ms slice at weight 3 against 1,024), long enough for the sample ring to
// fill at 240,000 samples/s; at nice 19 about every 50 ms.
inline constexpr int kBackgroundNice = 19;

// Sets the calling thread's nice value to `nice` (raising it needs no privilege). False when
// the kernel refused; the thread then keeps its priority, which is only slower, never wrong.
bool lower_this_thread_priority(int nice = kBackgroundNice);

}  // namespace ibpulse
