#pragma once
// The one net-snmp handler behind every registration (each subtree, in each context): answers
// GET and GETNEXT from the current MibView (GETBULK reaches it as GETNEXTs through net-snmp's
// bulk_to_next helper), for the requests the fast path (fast_path.h) leaves to net-snmp and in
// AgentX mode. Private to the SNMP exporter.
//
// Thread safety: runs on the agent thread only, like all of net-snmp.

#include <atomic>
#include <memory>

#include "ibpulse/exporters/snmp/mib_view.h"
#include "ibpulse/exporters/snmp/status_scalars.h"
#include "net_snmp.h"

namespace ibpulse::exporters::snmp::detail {

struct HandlerState {
  // Swapped by the agent loop between packets, never during one: a request sees one view.
  std::shared_ptr<const MibView> view;
  // The context the fabric is registered in: "" for a master agent, the AgentX context
  // otherwise; the view knows the fabric as "".
  std::string fabric_context;
  CollectorStatus status;  // refreshed by the agent loop
  AlertScalars alerts;     // refreshed by the agent loop
  std::atomic<uint64_t> varbinds{0};
  VarBind scratch;  // reused for every varbind
  Oid request_oid;
  std::vector<::oid> answer_oid;
};

// Registers `subtree` in `context` ("" = default) with the handler; null on failure.
netsnmp_handler_registration* register_subtree(HandlerState& state, const Oid& subtree,
                                               const std::string& context);
// IBPULSE-MIB's collector status scalars in `context`.
netsnmp_handler_registration* register_status(HandlerState& state, const std::string& context);
// IBPULSE-MIB's alert scalars in `context`.
netsnmp_handler_registration* register_alerts(HandlerState& state, const std::string& context);

}  // namespace ibpulse::exporters::snmp::detail
