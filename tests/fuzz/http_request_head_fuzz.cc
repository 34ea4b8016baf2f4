// The metrics server's request head (bytes a client sent up to the blank line) and the basic
// credentials in it: a head or a 400, never a crash; what is parsed lies inside the bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "basic_auth.h"
#include "http_request.h"

namespace {

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::exporters::prometheus::detail;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const auto end = head_end(bytes);
  if (end && *end > bytes.size()) __builtin_trap();
  const std::string_view head(bytes.data(), end.value_or(bytes.size()));
  const auto parsed = parse_request_head(head);
  if (!parsed) return 0;
  if (!inside(parsed->method, head) || !inside(parsed->path, head) ||
      !inside(parsed->version, head)) {
    __builtin_trap();
  }
  for (const auto& [name, value] : parsed->fields) {
    if (!inside(name, head) || !inside(value, head) || name.empty()) __builtin_trap();
  }
  if (const auto authorization = parsed->field("Authorization")) {
    std::string decoded;
    const std::string_view credentials =
        authorization->substr(std::min<size_t>(6, authorization->size()));
    if (BasicAuth::decode_base64(credentials, decoded) && decoded.size() > credentials.size())
      __builtin_trap();
  }
  return 0;
}
