#pragma once
// The fabric's tables without net-snmp's per-varbind machinery. A GET, GETNEXT or GETBULK whose
// every answer lies inside one of the fabric's subtrees is answered here, straight from the
// MibView, in one response built and sent through the same session; net-snmp's agent would
// build a subtree cache, run the handler chain (bulk_to_next included) and check access once per
// varbind, about 3 us per varbind on a walk (bench/snmp_bench). Everything else goes to
// net-snmp's handle_snmp_packet untouched: SNMPv1, other subtrees, a walk's step past the end
// of a subtree, refused access, unknown contexts, a response too big to send. So a manager gets
// the same answers either way, only sooner.
//
// Access is decided once per request by net-snmp's own check_access(), which also maps a v2c
// COMMUNITY@CONTEXT to its context: every VACM view the agent configures includes all of .1
// (access_config.h), so what a principal may read in a context does not depend on the OID.
//
// Thread safety: the agent thread only, like all of net-snmp. One fast path per process.

#include <atomic>
#include <cstdint>
#include <vector>

#include "request_handler.h"

namespace ibpulse::exporters::snmp::detail {

struct FastPath {
  HandlerState* state = nullptr;
  // The subtrees registered in every context: an answer must stay inside the request's.
  std::vector<Oid> subtrees;
  std::atomic<bool> enabled{true};    // SnmpAgent::set_fast_path, from any thread
  std::atomic<uint64_t> answered{0};  // requests answered here

  // Reused from request to request.
  std::vector<VarBind> answers;
  std::vector<Oid> cursors;
  Oid request_oid;
  std::vector<::oid> name_scratch;
};

// Puts `fast` in front of net-snmp's handler for requests arriving on `session` (the master
// agent's listening session). `fast` must outlive it, or be removed first.
void install_fast_path(netsnmp_session* session, FastPath* fast);
void remove_fast_path(netsnmp_session* session);

}  // namespace ibpulse::exporters::snmp::detail
