#include "varbind_codec.h"

#include <algorithm>
#include <limits>

namespace ibpulse::exporters::snmp::detail {

bool to_oid(const ::oid* name, size_t length, Oid& out) {
  constexpr ::oid kMax = std::numeric_limits<uint32_t>::max();
  out.resize(length);
  bool clamped = false;
  for (size_t i = 0; i < length; ++i) {
    clamped = clamped || name[i] > kMax;
    out[i] = static_cast<uint32_t>(std::min(name[i], kMax));
  }
  return clamped;
}

void set_name(netsnmp_variable_list* var, const VarBind& vb, std::vector<::oid>& scratch) {
  scratch.assign(vb.name.begin(), vb.name.end());
  snmp_set_var_objid(var, scratch.data(), scratch.size());
}

void set_value(netsnmp_variable_list* var, const VarBind& vb) {
  switch (vb.type) {
    case VarType::kInteger: {
      const long v = static_cast<long>(vb.number);
      snmp_set_var_typed_value(var, ASN_INTEGER, &v, sizeof v);
      return;
    }
    case VarType::kCounter32:
    case VarType::kGauge32:
    case VarType::kTimeTicks: {
      const u_long v = static_cast<u_long>(vb.number & 0xFFFFFFFFu);
      const u_char type = vb.type == VarType::kCounter32 ? ASN_COUNTER
                          : vb.type == VarType::kGauge32 ? ASN_GAUGE
                                                         : ASN_TIMETICKS;
      snmp_set_var_typed_value(var, type, &v, sizeof v);
      return;
    }
    case VarType::kCounter64: {
      counter64 c{};
      c.high = static_cast<u_long>(vb.number >> 32);
      c.low = static_cast<u_long>(vb.number & 0xFFFFFFFFu);
      snmp_set_var_typed_value(var, ASN_COUNTER64, &c, sizeof c);
      return;
    }
    case VarType::kOctetString:
      snmp_set_var_typed_value(var, ASN_OCTET_STR, vb.text.data(), vb.text.size());
      return;
    case VarType::kObjectId: {
      std::vector<::oid> value(vb.oid_value.begin(), vb.oid_value.end());
      snmp_set_var_typed_value(var, ASN_OBJECT_ID, value.data(), value.size() * sizeof(::oid));
      return;
    }
  }
}

}  // namespace ibpulse::exporters::snmp::detail
