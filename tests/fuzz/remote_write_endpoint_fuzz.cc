// One remote-write receiver (remote-write.url: a URL or a map of its settings): an endpoint or
// an error naming the key, never a crash; a URL's redacted form never shows its password.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ibpulse/exporters/remote_write/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::exporters::remote_write;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto node = ibpulse::parse_config_text(text, "fuzz");
  if (!node) return 0;
  const auto endpoint = parse_endpoint(*node);
  if (endpoint) (void)redacted_url(endpoint->url);
  (void)redacted_url(text);
  return 0;
}
