#pragma once
// The collector's configuration keys, declared beside the options they fill (base/config_keys.h
// says how a program reads them): where the fabric is reached (fabric.*), discovery.*, mad.*,
// poll.*, sampling.*, shard.*, sm.* and collect.ext-speeds-layout. `ibpulse run` takes them all;
// discover, query and sample take the fabric_keys() and mad_keys() under the same names.
//
// Thread safety: pure functions.

#include "ibpulse/base/config_keys.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/sm_subscription.h"

namespace ibpulse::collector {

// fabric.ca, fabric.ca-port, fabric.node-name-map (loaded as it is set), fabric.max-smps,
// fabric.m-key, discovery.timeout, discovery.retries.
config::Keys<DiscoveryOptions> fabric_keys();
// mad.window, mad.per-node, mad.timeout, mad.retries.
config::Keys<MadEngineOptions> mad_keys();
// collect.ext-speeds-layout.
config::Keys<ExtSpeedsLayoutMode> ext_speeds_layout_keys();
// All of the above, and discovery.*, poll.*, sampling.* and shard.*.
config::Keys<PollerOptions> poller_keys();
// sm.traps, sm.sa-key, sm.subscription-refresh, sm.subscription-timeout (the HCA port is
// fabric.ca's).
config::Keys<SmSubscriptionOptions> sm_subscription_keys();

}  // namespace ibpulse::collector
