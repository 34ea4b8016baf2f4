#include "ibpulse/exporters/remote_write/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

namespace ibpulse::exporters::remote_write {
namespace {

// curl_global_init is not thread-safe: once, before the first handle.
void init_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t keep_start(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  const size_t len = size * n;
  if (body->size() < 512) body->append(data, std::min(len, 512 - body->size()));
  return len;
}

}  // namespace

Outcome classify(const HttpResult& result) {
  if (result.status >= 200 && result.status < 300) return Outcome::kSent;
  if (result.status == 0 || result.status >= 500 || result.status == 429) return Outcome::kRetry;
  return Outcome::kReject;
}

std::chrono::milliseconds Backoff::next() {
  current_ = current_.count() == 0 ? min_ : std::min(current_ * 2, max_);
  return current_;
}

struct HttpClient::Impl {
  CURL* curl = nullptr;
  curl_slist* headers = nullptr;
  std::string response;
};

HttpClient::HttpClient(const Endpoint& e) : impl_(std::make_unique<Impl>()) {
  init_curl();
  CURL* c = impl_->curl = curl_easy_init();
  auto& h = impl_->headers;
  h = curl_slist_append(h, "Content-Encoding: snappy");
  h = curl_slist_append(h, "Content-Type: application/x-protobuf");
  h = curl_slist_append(h, "X-Prometheus-Remote-Write-Version: 0.1.0");
  h = curl_slist_append(h, "User-Agent: ibpulse");
  h = curl_slist_append(h, "Expect:");  // no 100-continue round trip
  for (const auto& [name, value] : e.headers)
    h = curl_slist_append(h, (name + ": " + value).c_str());
  if (!e.bearer_token.empty()) {
    h = curl_slist_append(h, ("Authorization: Bearer " + e.bearer_token).c_str());
  }
  curl_easy_setopt(c, CURLOPT_URL, e.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(e.timeout.count()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_start);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &impl_->response);
  if (!e.username.empty()) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERNAME, e.username.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, e.password.c_str());
  }
  if (!e.tls_ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, e.tls_ca_file.c_str());
  if (!e.tls_cert_file.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, e.tls_cert_file.c_str());
  if (!e.tls_key_file.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, e.tls_key_file.c_str());
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(impl_->curl);
  curl_slist_free_all(impl_->headers);
}

HttpResult HttpClient::post(const std::string& body) {
  HttpResult r;
  impl_->response.clear();
  curl_easy_setopt(impl_->curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(impl_->curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  const CURLcode code = curl_easy_perform(impl_->curl);
  if (code != CURLE_OK) {
    r.error = curl_easy_strerror(code);
    return r;
  }
  curl_easy_getinfo(impl_->curl, CURLINFO_RESPONSE_CODE, &r.status);
  r.body = std::move(impl_->response);
  return r;
}

}  // namespace ibpulse::exporters::remote_write
