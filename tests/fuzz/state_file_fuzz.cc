// The counters' state file (state.dir/counters.state), damaged or forged: apply_state() either
// refuses it with a reason or restores it; the converter then still converts and snapshots.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/state_file.h"

namespace {

// Two ports the seed files were written for (tests/fuzz/corpus/state_file).
std::shared_ptr<const ibpulse::collector::Topology> topology() {
  static const auto t = [] {
    auto out = std::make_shared<ibpulse::collector::Topology>();
    out->subnet_prefix = 0xfe80000000000000ull;
    out->nodes.push_back(
        {0x10, ibpulse::collector::NodeKind::kCa, "hca", "hca", 1, 0, 1, {}, {}, {}});
    out->nodes.push_back(
        {0x20, ibpulse::collector::NodeKind::kSwitch, "sw", "sw", 8, 0, 2, {}, {}, {}});
    for (const ibpulse::collector::PortKey key :
         {ibpulse::collector::PortKey{0x10, 1}, ibpulse::collector::PortKey{0x20, 3}}) {
      ibpulse::collector::Port p;
      p.key = key;
      p.lid = static_cast<uint16_t>(key.port + 1);
      p.link.state = 4;
      out->ports.push_back(p);
    }
    return out;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::converters;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Converter converter({});
  const auto loaded = apply_state(bytes, *topology(), converter);
  converter.set_topology(topology());
  const auto snapshot = converter.snapshot(Clock::now());
  if (snapshot->ports.size() < topology()->ports.size()) __builtin_trap();
  if (loaded) (void)encode_state(converter, topology()->subnet_prefix);
  return 0;
}
