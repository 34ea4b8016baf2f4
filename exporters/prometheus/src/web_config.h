#pragma once
// The web configuration file, in the format of the Prometheus exporter-toolkit (the
// `--web.config.file` of node_exporter and the InfiniBand exporters), so a site reuses the file
// and certificates it already has:
//
//   tls_server_config:
//     cert_file: server.crt         # PEM, the certificate chain
//     key_file: server.key          # PEM
//     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (default),
//         # RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven
//     client_ca_file: clients-ca.crt   # needed by the two Verify types
//     min_version: TLS12            # TLS10, TLS11, TLS12 (default), TLS13
//     max_version: TLS13
//   basic_auth_users:
//     prometheus: $2y$12$...        # bcrypt hashes ($2a$, $2b$, $2y$), e.g. htpasswd -nBC 12
//
// Relative paths are taken from the file's directory, as the exporter-toolkit does. A key
// ibpulse does not know, or one of the toolkit's it does not implement (cipher_suites,
// curve_preferences, http_server_config, ...), is an error naming it: a site's security
// setting is never silently dropped. Private to the exporter.
//
// Thread safety: pure functions of their arguments (and the file read).

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus::detail {

enum class ClientAuth {
  kNone,              // NoClientCert
  kRequest,           // RequestClientCert: asked for, not checked
  kRequireAny,        // RequireAnyClientCert: required, not checked
  kVerifyIfGiven,     // VerifyClientCertIfGiven
  kRequireAndVerify,  // RequireAndVerifyClientCert
};

struct TlsServerConfig {
  std::filesystem::path cert_file;
  std::filesystem::path key_file;
  ClientAuth client_auth = ClientAuth::kNone;
  std::filesystem::path client_ca_file;
  int min_version = 0;  // OpenSSL's TLS1_2_VERSION etc.; set by the parser
  int max_version = 0;  // 0: the newest OpenSSL has
};

struct WebConfig {
  bool tls = false;
  TlsServerConfig tls_config;
  std::vector<std::pair<std::string, std::string>> users;  // name, bcrypt hash; sorted by name
};

// `text`: the file's YAML; `directory`: where relative paths start. Errors: "KEY: why".
Result<WebConfig> parse_web_config(std::string_view text, const std::filesystem::path& directory);

// Reads and parses `file`. Errors: "web config FILE: KEY: why" (or why the file cannot be read).
Result<WebConfig> load_web_config(const std::filesystem::path& file);

}  // namespace ibpulse::exporters::prometheus::detail
