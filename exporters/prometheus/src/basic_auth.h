#pragma once
// HTTP basic authentication against the web config's bcrypt hashes (libcrypt's crypt_r, which
// takes $2a$, $2b$ and $2y$).
//
// bcrypt is slow on purpose (cost 12: ~0.25 s of CPU), and Prometheus sends the same
// credentials with every scrape, so a successful check is cached: by a SHA-256 of user,
// password and hash, never the password itself. Failures are not cached, so guessing costs a
// bcrypt each time; an unknown user is checked against a hash of the same cost, so a reply's
// time does not tell which users exist. Private to the exporter.
//
// Thread safety: allows() may be called from any number of threads.

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ibpulse::exporters::prometheus::detail {

class BasicAuth {
 public:
  // `users`: name and bcrypt hash each (checked by the web config parser); none: everyone.
  explicit BasicAuth(std::vector<std::pair<std::string, std::string>> users);

  bool required() const { return !users_.empty(); }
  // `authorization`: the Authorization header's value, or empty when there was none.
  bool allows(std::string_view authorization);

  // bcrypt computations so far (cache hits cost none): what shows the cache works.
  uint64_t bcrypt_runs() const { return bcrypt_runs_.load(std::memory_order_relaxed); }

  // Base64 (RFC 4648, padded) to bytes; false on a malformed text. Exposed for its tests.
  static bool decode_base64(std::string_view text, std::string& out);

 private:
  using Digest = std::array<uint8_t, 32>;
  static Digest digest(std::string_view user, std::string_view password, std::string_view hash);
  bool bcrypt_matches(std::string_view password, const std::string& hash);
  bool cached(const Digest& key);

  static constexpr size_t kCacheEntries = 256;  // distinct good credentials kept

  std::vector<std::pair<std::string, std::string>> users_;  // sorted by name
  std::string unknown_user_hash_;  // a bcrypt hash at the users' highest cost
  std::mutex mutex_;
  std::set<Digest> cache_;
  std::atomic<uint64_t> bcrypt_runs_{0};
};

}  // namespace ibpulse::exporters::prometheus::detail
