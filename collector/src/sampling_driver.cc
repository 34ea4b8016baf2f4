#include "sampling_driver.h"

#include <algorithm>

namespace ibpulse::collector {

void SamplingDriver::reset(const SamplingOptions& options) {
  options_ = options;
  ports_.clear();
  for (const PortKey& p : options_.ports)
    ports_.push_back(SampledPort{p, std::nullopt, {}});
}

SamplingDriver::Clock::time_point SamplingDriver::drive(Clock::time_point now,
                                                        const Topology& topology, const Send& send,
                                                        const Ended& ended) {
  auto wake = Clock::time_point::max();
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    SampledPort& sp = ports_[i];
    if (!sp.session) {
      if (now < sp.next_start) {
        wake = std::min(wake, sp.next_start);
        continue;
      }
      const Port* port = topology.find_port(sp.port);
      if (port == nullptr || port->lid == 0) {
        sp.next_start = now + options_.every;  // not in the fabric (now): try later
        continue;
      }
      SampleRequest r;
      r.lid = port->lid;
      r.port = sp.port.port;
      r.selects = options_.selects;
      r.interval = options_.interval;
      r.take_over = options_.take_over;
      r.timeout = std::max(options_.every, std::chrono::milliseconds(10000));
      sp.session.emplace(std::move(r), now);
    }
    if (auto request = sp.session->next(now)) {
      send(i, sp.port, *request);
    } else if (sp.session->finished()) {
      end(sp, now, ended);
    } else {
      wake = std::min(wake, sp.session->wake_at());
    }
  }
  return wake;
}

void SamplingDriver::on_reply(uint32_t index, const MadCompletion& reply, const Ended& ended) {
  if (index >= ports_.size() || !ports_[index].session) return;  // reconfigured meanwhile
  SampledPort& sp = ports_[index];
  sp.session->on_reply(reply, reply.received);
  if (sp.session->finished()) end(sp, reply.received, ended);
}

void SamplingDriver::end(SampledPort& sp, Clock::time_point now, const Ended& ended) const {
  ended(sp.port, sp.session->result(), sp.session->request(), now);
  sp.session.reset();
  sp.next_start = now + options_.every;
}

RawSample sample_reading(PortKey port, uint8_t subnet, const SampleResult& result,
                         const SampleRequest& request, std::chrono::steady_clock::time_point now) {
  RawSample s;
  s.port = port;
  s.subnet = subnet;
  s.attribute = result.extended ? schema::Attribute::kPortSamplesResultExtended
                                : schema::Attribute::kPortSamplesResult;
  s.received = now;
  // A sample has at most 15 counters (run_sample and the config check it); bounded anyway.
  const size_t n = std::min({result.counters.size(), s.selects.size(), request.selects.size()});
  std::copy_n(result.counters.begin(), n, s.values.begin());
  std::copy_n(request.selects.begin(), n, s.selects.begin());
  s.field_count = static_cast<uint8_t>(n);
  s.advertised = (uint64_t{1} << n) - 1;
  s.sampled_for = result.ran_for;
  return s;
}

}  // namespace ibpulse::collector
