#pragma once
// The Prometheus endpoint's configuration keys (web.*, and collect.*: the metric groups),
// declared beside the options they fill; base/config_keys.h says how a program reads them.
//
// Thread safety: a pure function.

#include "ibpulse/base/config_keys.h"
#include "ibpulse/exporters/prometheus/web_endpoint.h"

namespace ibpulse::exporters::prometheus {

// web.listen-address, web.config-file (also spelled --web.config.file, the exporter-toolkit's
// flag: the program adds that alias), collect.<group> for each of MetricGroups.
config::Keys<WebOptions> web_keys();

}  // namespace ibpulse::exporters::prometheus
