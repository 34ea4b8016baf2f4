#pragma once
// The listening side of civetweb, in both directions: what an HttpOptions listen address
// becomes as civetweb's `listening_ports` value (checked against what the installed civetweb
// was built with: IPv6, TLS), and what civetweb's failure to start becomes as an error for the
// operator. Private to the exporter.
//
// Thread safety: pure functions of their arguments and the civetweb library's build features.

#include <string>
#include <string_view>

#include "ibpulse/base/result.h"
#include "ibpulse/exporters/prometheus/http_server.h"

namespace ibpulse::exporters::prometheus::detail {

// "[host]:port" -> civetweb's listening_ports value ("port", "1.2.3.4:port", "[::1]:port",
// with an `s` suffix for TLS).
Result<std::string> civetweb_listen_spec(const HttpOptions& options);

// The error for a failed mg_start2. `reason`: civetweb's first log message while starting, or
// else mg_start2's error text; either may be empty.
Error civetweb_start_error(const HttpOptions& options, std::string_view reason);

}  // namespace ibpulse::exporters::prometheus::detail
