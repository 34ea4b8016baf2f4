#include "tls_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509err.h>

#include <array>
#include <string>
#include <system_error>

namespace ibpulse::exporters::prometheus::detail {
namespace {

// "KEY: PATH: why" when the file is missing or unreadable, before OpenSSL's terser reason.
Status readable(const char* key, const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Err("tls_server_config.{}: {}: {}", key, path.string(),
               ec ? ec.message() : "not a regular file");
  }
  return Ok{};
}

// Accepts whatever certificate the client shows: the Request/RequireAny types ask for one
// without checking it (the exporter-toolkit's meaning of them).
int accept_any(int /*preverified*/, X509_STORE_CTX* /*store*/) {
  return 1;
}

Status set_client_auth(SSL_CTX* ctx, const TlsServerConfig& config) {
  int mode = SSL_VERIFY_NONE;
  SSL_verify_cb callback = nullptr;
  switch (config.client_auth) {
    case ClientAuth::kNone:
      break;
    case ClientAuth::kRequest:
      mode = SSL_VERIFY_PEER;
      callback = accept_any;
      break;
    case ClientAuth::kRequireAny:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      callback = accept_any;
      break;
    case ClientAuth::kVerifyIfGiven:
      mode = SSL_VERIFY_PEER;
      break;
    case ClientAuth::kRequireAndVerify:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      break;
  }
  if (!config.client_ca_file.empty()) {
    if (Status ok = readable("client_ca_file", config.client_ca_file); !ok) return ok;
    const std::string ca = config.client_ca_file.string();
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca.c_str());
    if (names == nullptr || SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) != 1) {
      if (names != nullptr) sk_X509_NAME_pop_free(names, X509_NAME_free);
      return Err("tls_server_config.client_ca_file: {}: no CA certificate in it ({})", ca,
                 take_openssl_error("unknown reason"));
    }
    SSL_CTX_set_client_CA_list(ctx, names);  // takes the list
  }
  SSL_CTX_set_verify(ctx, mode, callback);
  return Ok{};
}

}  // namespace

std::string take_openssl_error(std::string_view when_none) {
  const unsigned long code = ERR_peek_last_error();  // NOLINT(google-runtime-int): OpenSSL's type
  ERR_clear_error();
  if (code == 0) return std::string(when_none);
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return text.data();
}

Result<TlsContext> make_tls_context(const TlsServerConfig& config) {
  ERR_clear_error();
  TlsContext ctx(SSL_CTX_new(TLS_server_method()), &SSL_CTX_free);
  if (!ctx)
    return Err("tls_server_config: cannot make a TLS context ({})",
               take_openssl_error("unknown reason"));
  if (Status ok = readable("cert_file", config.cert_file); !ok) return Error{ok.error()};
  if (Status ok = readable("key_file", config.key_file); !ok) return Error{ok.error()};
  const std::string cert = config.cert_file.string();
  const std::string key = config.key_file.string();
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert.c_str()) != 1) {
    return Err("tls_server_config.cert_file: {}: no PEM certificate in it ({})", cert,
               take_openssl_error("unknown reason"));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      return Err("tls_server_config.key_file: {}: does not match the certificate in {}", key, cert);
    }
    return Err("tls_server_config.key_file: {}: no PEM private key in it ({})", key,
               take_openssl_error("unknown reason"));
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    return Err("tls_server_config.key_file: {}: does not match the certificate in {}", key, cert);
  }
  SSL_CTX_set_min_proto_version(ctx.get(), config.min_version);
  SSL_CTX_set_max_proto_version(ctx.get(), config.max_version);
  // Only complete records from SSL_write, and no session tickets to keep: every response
  // closes its connection.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  if (Status ok = set_client_auth(ctx.get(), config); !ok) return Error{ok.error()};
  return ctx;
}

}  // namespace ibpulse::exporters::prometheus::detail
