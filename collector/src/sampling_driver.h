#pragma once
// The operator's sampling.ports, measured one PortSamples sample after another (sampler.h's
// SampleSession: Get the control, Set it, poll the result), from the poller's loop and with its
// engine: a port's next sample starts sampling.every after the last one ended. Private to the
// poller.
//
// Thread safety: none; the poller's thread only.

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/sampler.h"

namespace ibpulse::collector {

class SamplingDriver {
 public:
  using Clock = std::chrono::steady_clock;
  // Sends a sample's MAD for `port`, sampled port `index`: the poller fills in its node and
  // cookie.
  using Send = std::function<void(uint32_t index, PortKey port, MadRequest& request)>;
  // A sample ended (done or not): its port, result and request.
  using Ended = std::function<void(PortKey port, const SampleResult& result,
                                   const SampleRequest& request, Clock::time_point now)>;

  // The ports of `options`, none sampled yet (a reconfiguration drops the running samples).
  void reset(const SamplingOptions& options);
  bool empty() const { return ports_.empty(); }

  // Starts the due samples of ports `topology` has, sends what the running ones need; returns
  // when to look again.
  Clock::time_point drive(Clock::time_point now, const Topology& topology, const Send& send,
                          const Ended& ended);
  // An answer to a MAD of sampled port `index` (gone after a reset: ignored).
  void on_reply(uint32_t index, const MadCompletion& reply, const Ended& ended);

 private:
  struct SampledPort {
    PortKey port;
    std::optional<SampleSession> session;
    Clock::time_point next_start{};
  };
  void end(SampledPort& sp, Clock::time_point now, const Ended& ended) const;

  SamplingOptions options_;
  std::vector<SampledPort> ports_;
};

// A done sample as the converter takes it: the counters of its selects, and how long it ran.
RawSample sample_reading(PortKey port, uint8_t subnet, const SampleResult& result,
                         const SampleRequest& request, std::chrono::steady_clock::time_point now);

}  // namespace ibpulse::collector
