#include "fast_path.h"

#include <algorithm>
#include <climits>
#include <span>
#include <string_view>

#include "varbind_codec.h"

namespace ibpulse::exporters::snmp::detail {
namespace {

FastPath* g_fast_path = nullptr;  // the agent thread's; see fast_path.h

bool starts_with(std::span<const uint32_t> name, const Oid& prefix) {
  return name.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), name.begin());
}

const Oid* subtree_of(const FastPath& fast, std::span<const uint32_t> name) {
  for (const Oid& subtree : fast.subtrees)
    if (starts_with(name, subtree)) return &subtree;
  return nullptr;
}

// One answer slot, reused across requests.
VarBind& next_slot(FastPath& fast, size_t& used) {
  if (used == fast.answers.size()) fast.answers.emplace_back();
  return fast.answers[used++];
}

struct Request {
  const MibView& view;
  std::string_view context;
  MibView::Clock::time_point now;
};

// GETNEXT of `from`, when both it and its answer lie in one subtree of ours: then no other
// registration can own anything between them.
bool next_inside(const FastPath& fast, const Request& r, std::span<const uint32_t> from,
                 VarBind& out) {
  const Oid* subtree = subtree_of(fast, from);
  return subtree != nullptr && r.view.next(r.context, from, false, r.now, out) &&
         starts_with(out.name, *subtree);
}

bool get_inside(const FastPath& fast, const Request& r, std::span<const uint32_t> name,
                VarBind& out) {
  return subtree_of(fast, name) != nullptr && r.view.get(r.context, name, r.now, out);
}

// How many repetitions net-snmp itself would grant (its maxGetbulkRepeats and
// maxGetbulkResponses, 100 when unset), so both paths answer a GETBULK with as many varbinds.
long granted_repetitions(long asked, long repeaters) {
  long responses =
      netsnmp_ds_get_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_MAX_GETBULKRESPONSES);
  if (responses == 0) responses = 100;
  if (responses < 0) responses = INT_MAX;
  long repeats = netsnmp_ds_get_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_MAX_GETBULKREPEATS);
  if (repeats <= 0 || repeats > responses / repeaters) repeats = responses / repeaters;
  return std::clamp(asked, 0L, repeats);
}

// Every answer of `pdu` into fast.answers[0, used); false when any needs net-snmp.
bool collect(FastPath& fast, const Request& r, netsnmp_pdu* pdu, size_t& used) {
  used = 0;
  long count = 0;
  for (netsnmp_variable_list* v = pdu->variables; v != nullptr; v = v->next_variable)
    ++count;
  // GETBULK's non-repeaters and max-repetitions travel in errstat and errindex.
  const bool bulk = pdu->command == SNMP_MSG_GETBULK;
  const long singles = bulk ? std::clamp(pdu->non_repeaters, 0L, count) : count;
  fast.cursors.clear();
  long index = 0;
  for (netsnmp_variable_list* v = pdu->variables; v != nullptr; v = v->next_variable, ++index) {
    if (to_oid(v->name, v->name_length, fast.request_oid)) return false;
    if (index >= singles) {
      fast.cursors.push_back(fast.request_oid);
      continue;
    }
    VarBind& out = next_slot(fast, used);
    const bool found = pdu->command == SNMP_MSG_GET ? get_inside(fast, r, fast.request_oid, out)
                                                    : next_inside(fast, r, fast.request_oid, out);
    if (!found) return false;
  }
  if (fast.cursors.empty()) return true;
  const long repeaters = static_cast<long>(fast.cursors.size());
  const long repetitions = granted_repetitions(pdu->max_repetitions, repeaters);
  for (long rep = 0; rep < repetitions; ++rep) {
    for (Oid& cursor : fast.cursors) {
      VarBind& out = next_slot(fast, used);
      if (!next_inside(fast, r, cursor, out)) return false;
      cursor = out.name;
    }
  }
  return true;
}

// The response: a copy of the request's header (version, community or security parameters,
// request ID, return address), as net-snmp's agent makes its own, with our varbinds.
bool send_response(FastPath& fast, netsnmp_session* session, netsnmp_pdu* pdu, size_t used) {
  netsnmp_pdu* response = snmp_clone_pdu(pdu);
  if (response == nullptr) return false;
  snmp_free_varbind(response->variables);
  response->variables = nullptr;
  response->command = SNMP_MSG_RESPONSE;
  response->errstat = SNMP_ERR_NOERROR;
  response->errindex = 0;
  netsnmp_variable_list** tail = &response->variables;
  for (size_t i = 0; i < used; ++i) {
    auto* var = static_cast<netsnmp_variable_list*>(calloc(1, sizeof(netsnmp_variable_list)));
    if (var == nullptr) {
      snmp_free_pdu(response);
      return false;
    }
    *tail = var;
    tail = &var->next_variable;
    set_name(var, fast.answers[i], fast.name_scratch);
    set_value(var, fast.answers[i]);
  }
  // Fails before anything is sent, e.g. when the response exceeds what the manager accepts:
  // net-snmp's own processing then answers the request from the start, as it always would.
  if (snmp_send(session, response) == 0) {
    snmp_free_pdu(response);
    return false;
  }
  snmp_increment_statistic_by(STAT_SNMPINTOTALREQVARS, static_cast<int>(used));
  snmp_increment_statistic(STAT_SNMPOUTPKTS);
  snmp_increment_statistic(STAT_SNMPOUTGETRESPONSES);
  return true;
}

bool eligible(const netsnmp_session* session, const netsnmp_pdu* pdu) {
  const bool read = pdu->command == SNMP_MSG_GET || pdu->command == SNMP_MSG_GETNEXT ||
                    pdu->command == SNMP_MSG_GETBULK;
  // SNMPv1 cannot carry Counter64: net-snmp turns those into errors.
  const bool version = pdu->version == SNMP_VERSION_2c || pdu->version == SNMP_VERSION_3;
  const bool authentic = session->s_snmp_errno != SNMPERR_USM_AUTHENTICATIONFAILURE;
  return read && version && authentic && pdu->variables != nullptr;
}

bool answer(FastPath& fast, netsnmp_session* session, netsnmp_pdu* pdu) {
  HandlerState& state = *fast.state;
  if (!state.view || !eligible(session, pdu)) return false;
  if (check_access(pdu) != 0) return false;  // net-snmp reports or drops it again
  std::string_view context(pdu->contextName != nullptr ? pdu->contextName : "",
                           pdu->contextName != nullptr ? pdu->contextNameLen : 0);
  if (context == state.fabric_context) context = "";
  const Request r{*state.view, context, MibView::Clock::now()};
  size_t used = 0;
  if (!collect(fast, r, pdu, used)) return false;
  // Counted before the response leaves: whoever has the answer sees it counted.
  fast.answered.fetch_add(1, std::memory_order_relaxed);
  state.varbinds.fetch_add(used, std::memory_order_relaxed);
  if (send_response(fast, session, pdu, used)) return true;
  fast.answered.fetch_sub(1, std::memory_order_relaxed);
  state.varbinds.fetch_sub(used, std::memory_order_relaxed);
  return false;
}

int on_packet(int op, netsnmp_session* session, int reqid, netsnmp_pdu* pdu, void* magic) {
  FastPath* fast = g_fast_path;
  if (fast != nullptr && fast->enabled.load(std::memory_order_relaxed) &&
      op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && magic == nullptr) {
    if (answer(*fast, session, pdu)) return 1;
  }
  return handle_snmp_packet(op, session, reqid, pdu, magic);
}

}  // namespace

void install_fast_path(netsnmp_session* session, FastPath* fast) {
  g_fast_path = fast;
  session->callback = &on_packet;
}

void remove_fast_path(netsnmp_session* session) {
  if (session != nullptr) session->callback = &handle_snmp_packet;
  g_fast_path = nullptr;
}

}  // namespace ibpulse::exporters::snmp::detail
