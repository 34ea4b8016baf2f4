#pragma once
// The converter thread's configuration keys (counters.*, state.*), declared beside the options
// they fill; base/config_keys.h says how a program reads them.
//
// Thread safety: a pure function.

#include "ibpulse/base/config_keys.h"
#include "ibpulse/converters/convert_loop.h"

namespace ibpulse::converters {

// counters.clear-policy, counters.clear-threshold, counters.publish-interval,
// counters.not-present-grace, counters.foreign-clear-window, state.dir (empty: the program's
// default, which it fills in), state.save-interval.
config::Keys<ConvertLoopOptions> convert_loop_keys();

}  // namespace ibpulse::converters
