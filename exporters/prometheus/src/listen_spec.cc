#include "listen_spec.h"

#include <civetweb.h>

#include <string>
#include <string_view>

namespace ibpulse::exporters::prometheus::detail {
namespace {

constexpr unsigned kFeatureTls = 2;   // mg_check_feature: HTTPS
constexpr unsigned kFeatureIpv6 = 8;  // mg_check_feature: IPv6

}  // namespace

Result<std::string> civetweb_listen_spec(const HttpOptions& options) {
  const std::string& address = options.listen_address;
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Err("bad listen address '{}': want [host]:port", address);
  std::string_view host = std::string_view(address).substr(0, colon);
  std::string_view port = std::string_view(address).substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoul(std::string(port)) > 65535) {
    return Err("bad listen address '{}': port must be 0 to 65535", address);
  }
  if (host.starts_with('[') && !mg_check_feature(kFeatureIpv6)) {
    return Err("cannot listen on {}: this civetweb was built without IPv6", address);
  }
  if (!options.tls_certificate.empty() && !mg_check_feature(kFeatureTls)) {
    return Err("cannot serve TLS on {}: this civetweb was built without TLS", address);
  }
  std::string spec = host.empty() ? std::string(port) : address;
  if (!options.tls_certificate.empty()) spec += 's';
  return spec;
}

Error civetweb_start_error(const HttpOptions& options, std::string_view reason) {
  if (reason.find("in use") != std::string_view::npos) reason = "address in use";
  if (!options.tls_certificate.empty() && reason.find("load_tls_dll") != std::string_view::npos) {
    // Debian 12's civetweb 1.15 dlopens libssl.so and looks up OpenSSL 1.1 names that
    // OpenSSL 3 no longer exports (SSL_get_peer_certificate).
    return Err(
        "cannot serve TLS on {}: civetweb cannot use this OpenSSL ({}); put a TLS "
        "reverse proxy in front instead",
        options.listen_address, reason);
  }
  if (reason.empty()) reason = "civetweb failed to start";
  return Err("cannot listen on {}: {}", options.listen_address, reason);
}

}  // namespace ibpulse::exporters::prometheus::detail
