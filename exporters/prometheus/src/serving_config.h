#pragma once
// What the metrics server applies to each new connection, from the web config file: the TLS
// context (none: plain HTTP) and the basic-auth users (none: open). Replaced whole at a reload;
// a connection keeps the one it started with. Private to the exporter.
//
// Thread safety: immutable once loaded, but for BasicAuth's cache, which is thread-safe.

#include <memory>
#include <string>

#include "basic_auth.h"
#include "ibpulse/base/result.h"
#include "tls_context.h"

namespace ibpulse::exporters::prometheus::detail {

struct ServingConfig {
  TlsContext tls;  // null: plain HTTP
  std::shared_ptr<BasicAuth> auth;
};

// `web_config_file` empty: plain HTTP without authentication. Errors: "web config FILE: KEY:
// why".
Result<std::shared_ptr<const ServingConfig>> load_serving_config(
    const std::string& web_config_file);

}  // namespace ibpulse::exporters::prometheus::detail
