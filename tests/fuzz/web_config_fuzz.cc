// The web config file (exporter-toolkit format): a config or an error naming a key, never a
// crash. The TLS context is not built (it reads the named files); users' hashes are checked
// for form only (a bcrypt at the file's cost would make each run slow).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::exporters::prometheus::detail;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = parse_web_config(text, "/etc/ibpulse");
  if (!config) {
    if (config.error().empty()) __builtin_trap();  // every refusal says why
    return 0;
  }
  if (config->tls && (config->tls_config.cert_file.empty() || config->tls_config.key_file.empty()))
    __builtin_trap();
  for (const auto& [user, hash] : config->users) {
    if (hash.size() != 60 || user.empty()) __builtin_trap();
  }
  return 0;
}
