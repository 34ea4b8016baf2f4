#include "basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <memory>

namespace ibpulse::exporters::prometheus::detail {
namespace {

constexpr std::string_view kScheme = "Basic ";

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// The cost of a bcrypt hash ("$2b$12$..." -> 12); the web config parser checked its form.
unsigned long bcrypt_cost(std::string_view hash) {  // NOLINT(google-runtime-int): crypt's type
  return static_cast<unsigned long>((hash[4] - '0') * 10 + (hash[5] - '0'));  // NOLINT
}

}  // namespace

BasicAuth::BasicAuth(std::vector<std::pair<std::string, std::string>> users)
    : users_(std::move(users)) {
  std::sort(users_.begin(), users_.end());
  if (users_.empty()) return;
  unsigned long cost = 4;  // NOLINT(google-runtime-int)
  for (const auto& [name, hash] : users_)
    cost = std::max(cost, bcrypt_cost(hash));
  std::array<char, CRYPT_GENSALT_OUTPUT_SIZE> salt{};
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, salt.data(), salt.size()) == nullptr) return;
  auto data = std::make_unique<crypt_data>();
  const char* hashed = crypt_r("no user has this password", salt.data(), data.get());
  if (hashed != nullptr && hashed[0] == '$') unknown_user_hash_ = hashed;
}

bool BasicAuth::decode_base64(std::string_view text, std::string& out) {
  out.clear();
  if (text.size() % 4 != 0) return false;
  for (size_t i = 0; i < text.size(); i += 4) {
    std::array<int, 4> v{};
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      const bool last_group = i + 4 == text.size();
      if (c == '=' && last_group && j >= 2 && (j == 3 || text[i + 3] == '=')) {
        ++pad;
        continue;
      }
      if (pad > 0) return false;
      v.at(j) = base64_value(c);
      if (v.at(j) < 0) return false;
    }
    const unsigned bits =
        (unsigned(v[0]) << 18) | (unsigned(v[1]) << 12) | (unsigned(v[2]) << 6) | unsigned(v[3]);
    out.push_back(static_cast<char>(bits >> 16));
    if (pad < 2) out.push_back(static_cast<char>((bits >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(bits & 0xff));
  }
  return true;
}

BasicAuth::Digest BasicAuth::digest(std::string_view user, std::string_view password,
                                    std::string_view hash) {
  std::string input;
  input.reserve(user.size() + password.size() + hash.size() + 2);
  input.append(user).append(1, '\0').append(password).append(1, '\0').append(hash);
  Digest out{};
  unsigned length = 0;
  EVP_Digest(input.data(), input.size(), out.data(), &length, EVP_sha256(), nullptr);
  OPENSSL_cleanse(input.data(), input.size());
  return out;
}

bool BasicAuth::bcrypt_matches(std::string_view password, const std::string& hash) {
  if (hash.empty()) return false;
  bcrypt_runs_.fetch_add(1, std::memory_order_relaxed);
  const std::string phrase(password);  // crypt_r wants it NUL-terminated
  auto data = std::make_unique<crypt_data>();
  const char* hashed = crypt_r(phrase.c_str(), hash.c_str(), data.get());
  const bool same = hashed != nullptr && std::string_view(hashed).size() == hash.size() &&
                    CRYPTO_memcmp(hashed, hash.data(), hash.size()) == 0;
  OPENSSL_cleanse(data.get(), sizeof(crypt_data));
  return same;
}

bool BasicAuth::allows(std::string_view authorization) {
  if (users_.empty()) return true;
  if (authorization.size() <= kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), authorization.begin(), [](char a, char b) {
        return a == b || (a >= 'A' && a <= 'Z' && a - 'A' + 'a' == b);  // "basic " too
      })) {
    return false;
  }
  std::string decoded;
  if (!decode_base64(authorization.substr(kScheme.size()), decoded)) return false;
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  const std::string_view user = std::string_view(decoded).substr(0, colon);
  const std::string_view password = std::string_view(decoded).substr(colon + 1);
  const auto found = std::lower_bound(users_.begin(), users_.end(), user,
                                      [](const std::pair<std::string, std::string>& entry,
                                         std::string_view name) { return entry.first < name; });
  const bool known = found != users_.end() && found->first == user;
  const std::string& hash = known ? found->second : unknown_user_hash_;
  const Digest key = digest(user, password, hash);
  const bool ok = known && (cached(key) || bcrypt_matches(password, hash));
  if (!known) bcrypt_matches(password, hash);  // the same cost as a wrong password
  OPENSSL_cleanse(decoded.data(), decoded.size());
  if (!ok) return false;
  const std::lock_guard lock(mutex_);
  if (cache_.size() >= kCacheEntries) cache_.clear();
  cache_.insert(key);
  return true;
}

bool BasicAuth::cached(const Digest& key) {
  const std::lock_guard lock(mutex_);
  return cache_.contains(key);
}

}  // namespace ibpulse::exporters::prometheus::detail
