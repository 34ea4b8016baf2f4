#pragma once
// What the daemon logs of its pipeline: discoveries, port state changes, sweeps and samples
// (the pollers' events), the SNMP agent's set-up, and the statistics at stop.
//
// Thread safety: the events run on the pollers' threads; the rest on the caller's.

#include <functional>

#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/sm_subscription.h"
#include "ibpulse/converters/convert_loop.h"
#include "ibpulse/exporters/alerts/alert_loop.h"
#include "ibpulse/exporters/snmp/agent.h"

namespace ibpulse::daemon {

// The pollers' events: logged, topology and port changes handed to the converter, `on_sweep`
// called after each sweep.
collector::PollerEvents poller_events(converters::ConvertLoop& converter,
                                      std::function<void()> on_sweep);

// At trace level: each reading as it reaches the converter (ConvertLoop's sample logger).
void log_sample(const collector::RawSample& s);

// The subscription's events: Notices posted to the alerts, the rest logged (a trap that keeps
// failing once, at warn, until it succeeds again).
collector::SmSubscriptionEvents sm_events(exporters::alerts::AlertLoop& alerts);

void log_snmp_agent(exporters::snmp::SnmpAgent& agent,
                    const exporters::snmp::AgentOptions& options);

// event=stopped: every statistic of the run.
void log_stopped(const collector::PollerStats& st, const converters::ConverterStats& cs);

}  // namespace ibpulse::daemon
