#include "web_config.h"

#include <openssl/ssl.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

namespace ibpulse::exporters::prometheus::detail {
namespace {

// Keys of the exporter-toolkit's format that ibpulse does not implement: refused by name.
constexpr std::array<std::string_view, 9> kToolkitKeysNotImplemented = {
    "cipher_suites",
    "curve_preferences",
    "prefer_server_cipher_suites",
    "client_allowed_sans",
    "cert",
    "key",
    "client_ca",
    "http_server_config",
    "rate_limit"};

constexpr std::array<std::string_view, 6> kTlsKeys = {
    "cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version"};

Error unknown_key(const std::string& where, const std::string& key) {
  const bool toolkit =
      std::find(kToolkitKeysNotImplemented.begin(), kToolkitKeysNotImplemented.end(), key) !=
      kToolkitKeysNotImplemented.end();
  return Err(
      "{}{}: {}", where, key,
      toolkit ? "not supported by ibpulse (remove it, or put a proxy in front)" : "unknown key");
}

Result<std::string> scalar(const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) return Err("{}: want a string", key);
  return node.Scalar();
}

Result<int> tls_version(const std::string& key, const std::string& text) {
  if (text == "TLS10") return TLS1_VERSION;
  if (text == "TLS11") return TLS1_1_VERSION;
  if (text == "TLS12") return TLS1_2_VERSION;
  if (text == "TLS13") return TLS1_3_VERSION;
  return Err("{}: '{}' is not one of TLS10, TLS11, TLS12, TLS13", key, text);
}

Result<ClientAuth> client_auth(const std::string& text) {
  if (text == "NoClientCert" || text.empty()) return ClientAuth::kNone;
  if (text == "RequestClientCert") return ClientAuth::kRequest;
  if (text == "RequireAnyClientCert") return ClientAuth::kRequireAny;
  if (text == "VerifyClientCertIfGiven") return ClientAuth::kVerifyIfGiven;
  if (text == "RequireAndVerifyClientCert") return ClientAuth::kRequireAndVerify;
  return Err(
      "tls_server_config.client_auth_type: '{}' is not one of NoClientCert, RequestClientCert, "
      "RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert",
      text);
}

Status set_tls_key(TlsServerConfig& tls, const std::string& key, const YAML::Node& value,
                   const std::filesystem::path& directory) {
  const std::string name = "tls_server_config." + key;
  if (std::find(kTlsKeys.begin(), kTlsKeys.end(), key) == kTlsKeys.end()) {
    return unknown_key("tls_server_config.", key);
  }
  Result<std::string> text = scalar(value, name);
  if (!text.ok()) return Error{text.error()};
  const auto path = [&] { return text->empty() ? std::filesystem::path() : directory / *text; };
  if (key == "cert_file") {
    tls.cert_file = path();
  } else if (key == "key_file") {
    tls.key_file = path();
  } else if (key == "client_ca_file") {
    tls.client_ca_file = path();
  } else if (key == "client_auth_type") {
    Result<ClientAuth> auth = client_auth(*text);
    if (!auth.ok()) return Error{auth.error()};
    tls.client_auth = *auth;
  } else {  // min_version, max_version
    Result<int> version = tls_version(name, *text);
    if (!version.ok()) return Error{version.error()};
    (key == "min_version" ? tls.min_version : tls.max_version) = *version;
  }
  return Ok{};
}

Status parse_tls(const YAML::Node& node, const std::filesystem::path& directory, WebConfig& out) {
  if (node.IsNull()) return Ok{};
  if (!node.IsMap()) return Err("tls_server_config: want a map");
  out.tls = true;
  out.tls_config.min_version = TLS1_2_VERSION;  // the exporter-toolkit's default
  for (const auto& entry : node) {
    Status set =
        set_tls_key(out.tls_config, entry.first.as<std::string>(), entry.second, directory);
    if (!set.ok()) return set;
  }
  const TlsServerConfig& tls = out.tls_config;
  if (tls.cert_file.empty()) return Err("tls_server_config.cert_file: missing");
  if (tls.key_file.empty()) return Err("tls_server_config.key_file: missing");
  const bool verifies = tls.client_auth == ClientAuth::kVerifyIfGiven ||
                        tls.client_auth == ClientAuth::kRequireAndVerify;
  if (verifies && tls.client_ca_file.empty()) {
    return Err("tls_server_config.client_ca_file: missing (the client_auth_type verifies)");
  }
  if (!verifies && !tls.client_ca_file.empty()) {
    return Err("tls_server_config.client_ca_file: set, but client_auth_type {} verifies nothing",
               tls.client_auth == ClientAuth::kNone ? "NoClientCert" : "does not");
  }
  if (tls.max_version != 0 && tls.max_version < tls.min_version) {
    return Err("tls_server_config.max_version: below min_version");
  }
  return Ok{};
}

// A bcrypt hash as crypt(3) writes it: $2a$, $2b$ or $2y$, a two-digit cost, '$', 53 characters.
bool is_bcrypt(std::string_view hash) {
  if (hash.size() != 60 || hash[0] != '$' || hash[1] != '2' || hash[3] != '$' || hash[6] != '$')
    return false;
  if (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') return false;
  return hash[4] >= '0' && hash[4] <= '3' && hash[5] >= '0' && hash[5] <= '9';
}

Status parse_users(const YAML::Node& node, WebConfig& out) {
  if (node.IsNull()) return Ok{};
  if (!node.IsMap()) return Err("basic_auth_users: want a map of user name to bcrypt hash");
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const std::string key = "basic_auth_users." + name;
    if (name.empty() || name.find(':') != std::string::npos) {
      return Err("{}: a user name must be non-empty and without ':'", key);
    }
    Result<std::string> hash = scalar(entry.second, key);
    if (!hash.ok()) return Error{hash.error()};
    if (!is_bcrypt(*hash)) return Err("{}: not a bcrypt hash ($2a$, $2b$ or $2y$)", key);
    out.users.emplace_back(name, *hash);
  }
  std::sort(out.users.begin(), out.users.end());
  return Ok{};
}

}  // namespace

Result<WebConfig> parse_web_config(std::string_view text, const std::filesystem::path& directory) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Err("not YAML: {}", e.what());
  }
  WebConfig config;
  if (root.IsNull()) return config;  // an empty file: plain HTTP, no auth
  if (!root.IsMap()) return Err("want a map with tls_server_config and basic_auth_users");
  try {
    for (const auto& entry : root) {
      const std::string key = entry.first.as<std::string>();
      Status parsed = key == "tls_server_config"  ? parse_tls(entry.second, directory, config)
                      : key == "basic_auth_users" ? parse_users(entry.second, config)
                                                  : Status(unknown_key("", key));
      if (!parsed.ok()) return Error{parsed.error()};
    }
  } catch (const YAML::Exception& e) {  // a key that is not a scalar
    return Err("line {}: {}", e.mark.line + 1, e.msg);
  }
  return config;
}

Result<WebConfig> load_web_config(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(file, ec)) {
    return Err("web config {}: cannot read it", file.string());
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return Err("web config {}: cannot read it", file.string());
  Result<WebConfig> config = parse_web_config(text.str(), file.parent_path());
  if (!config.ok()) return Err("web config {}: {}", file.string(), config.error());
  return config;
}

}  // namespace ibpulse::exporters::prometheus::detail
