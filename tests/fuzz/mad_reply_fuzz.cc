// A MAD reply off the wire, as the MAD engine reads it into its 256-byte buffer (whatever came
// short is zero here): its header decoded, its data decoded as every PMA attribute the poller
// reads, as ClassPortInfo and as PortInfo. Any bytes: no crash, no read past the buffer.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ibpulse/collector/pma.h"
#include "ibpulse/schema/attributes.h"
#include "mad_codec.h"
#include "port_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibpulse::collector;
  std::array<uint8_t, kMadSize> mad{};
  std::memcpy(mad.data(), data, std::min(size, mad.size()));
  const DecodedReply reply = decode_reply(mad.data());
  (void)classify_status(reply.status);
  const std::span<const uint8_t> payload(mad.data() + kMadDataOffset, kMadDataSize);
  for (const auto& info : ibpulse::schema::all_attributes()) {
    for (const auto layout :
         {ibpulse::schema::Layout::kStandard, ibpulse::schema::Layout::kRsFec}) {
      RawSample sample;
      decode_fields(info.id, layout, payload, sample);
      if (sample.field_count > sample.values.size()) __builtin_trap();
    }
  }
  (void)decode_class_port_info(payload);
  (void)link_state_from_port_info(payload.data());
  return 0;
}
