#pragma once
// An OpenSSL server context from a web config's tls_server_config: certificate chain and key,
// protocol versions, and the client-certificate policy. A new context is made for each (re)load,
// so new certificates take effect at SIGHUP for new connections while connections in flight keep
// the context they started with. Private to the exporter.
//
// Thread safety: make_tls_context is reentrant; a finished context is only read.

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"
#include "web_config.h"

namespace ibpulse::exporters::prometheus::detail {

using TlsContext = std::shared_ptr<SSL_CTX>;

// The text of the thread's last OpenSSL error (`when_none` if there is none); the thread's
// error queue is emptied, so the next operation's error is its own.
std::string take_openssl_error(std::string_view when_none);

// Errors name the key and say why: "tls_server_config.key_file: /etc/x.key: cannot load it
// (OpenSSL's reason)".
Result<TlsContext> make_tls_context(const TlsServerConfig& config);

}  // namespace ibpulse::exporters::prometheus::detail
