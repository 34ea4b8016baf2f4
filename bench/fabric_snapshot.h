#pragma once
// A snapshot of the fabric this process is attached to (run it under `ibpulse sim exec`):
// discovered, every active port's PortCounters and PortCountersExtended read once, converted
// as the daemon does. Nothing polls afterwards: a benchmark serves it with polling paused.
//
// Thread safety: a pure function (it opens its own MAD engine).

#include <memory>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/snapshot.h"

namespace ibpulse::bench {

Result<std::shared_ptr<const converters::FabricSnapshot>> fabric_snapshot();

}  // namespace ibpulse::bench
