#pragma once
// Between net-snmp's varbinds and ours: request OIDs in, answers out. Shared by the registered
// handler (request_handler.h) and the fast path (fast_path.h), so both answer alike. Private to
// the SNMP exporter.
//
// Thread safety: the agent thread only, like all of net-snmp.

#include <vector>

#include "ibpulse/exporters/snmp/mib_view.h"
#include "net_snmp.h"

namespace ibpulse::exporters::snmp::detail {

// net-snmp's OID into `out`. Sub-identifiers beyond 32 bits cannot name anything we serve:
// they are clamped, which keeps the order of what follows; the result says whether any was.
bool to_oid(const ::oid* name, size_t length, Oid& out);

// `vb`'s name into `var`, through `scratch` (net-snmp's OIDs are wider than ours).
void set_name(netsnmp_variable_list* var, const VarBind& vb, std::vector<::oid>& scratch);

// `vb`'s type and value into `var`.
void set_value(netsnmp_variable_list* var, const VarBind& vb);

}  // namespace ibpulse::exporters::snmp::detail
