#include "request_handler.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "varbind_codec.h"

namespace ibpulse::exporters::snmp::detail {
namespace {

bool within(const Oid& name, const netsnmp_handler_registration* reg) {
  if (name.size() < reg->rootoid_len) return false;
  for (size_t i = 0; i < reg->rootoid_len; ++i) {
    if (name[i] != reg->rootoid[i]) return false;
  }
  return true;
}

int handle(netsnmp_mib_handler* handler, netsnmp_handler_registration* reg,
           netsnmp_agent_request_info* info, netsnmp_request_info* requests) {
  auto& state = *static_cast<HandlerState*>(handler->myvoid);
  if (!state.view) return SNMP_ERR_NOERROR;  // no snapshot yet: nothing to answer
  std::string_view context = reg->contextName != nullptr ? reg->contextName : "";
  if (context == state.fabric_context) context = "";
  const auto now = MibView::Clock::now();
  for (netsnmp_request_info* r = requests; r != nullptr; r = r->next) {
    if (r->processed) continue;
    netsnmp_variable_list* var = r->requestvb;
    to_oid(var->name, var->name_length, state.request_oid);
    VarBind& vb = state.scratch;
    state.varbinds.fetch_add(1, std::memory_order_relaxed);
    if (info->mode == MODE_GET) {
      if (state.view->get(context, state.request_oid, now, vb)) {
        set_value(var, vb);
      } else {
        netsnmp_set_request_error(info, r, SNMP_NOSUCHINSTANCE);
      }
    } else if (info->mode == MODE_GETNEXT) {
      // Past this registration's subtree the varbind stays as it is: the agent asks the next.
      if (state.view->next(context, state.request_oid, r->inclusive != 0, now, vb) &&
          within(vb.name, reg)) {
        set_name(var, vb, state.answer_oid);
        set_value(var, vb);
      }
    } else {
      netsnmp_set_request_error(info, r, SNMP_ERR_NOTWRITABLE);  // read-only agent
    }
  }
  return SNMP_ERR_NOERROR;
}

// A group of scalars: `next` is status_next() or alerts_next() over the state's values.
template <bool (*Next)(const HandlerState&, std::span<const uint32_t>, bool, VarBind&)>
int handle_scalars(netsnmp_mib_handler* handler, netsnmp_handler_registration* /*reginfo*/,
                   netsnmp_agent_request_info* info, netsnmp_request_info* requests) {
  auto& state = *static_cast<HandlerState*>(handler->myvoid);
  for (netsnmp_request_info* r = requests; r != nullptr; r = r->next) {
    if (r->processed) continue;
    netsnmp_variable_list* var = r->requestvb;
    to_oid(var->name, var->name_length, state.request_oid);
    VarBind& vb = state.scratch;
    const bool get = info->mode == MODE_GET;
    if (info->mode != MODE_GET && info->mode != MODE_GETNEXT) {
      netsnmp_set_request_error(info, r, SNMP_ERR_NOTWRITABLE);
    } else if (Next(state, state.request_oid, get || r->inclusive != 0, vb) &&
               (!get || vb.name == state.request_oid)) {
      if (!get) set_name(var, vb, state.answer_oid);
      set_value(var, vb);
    } else if (get) {
      netsnmp_set_request_error(info, r, SNMP_NOSUCHINSTANCE);
    }
  }
  return SNMP_ERR_NOERROR;
}

bool collector_next(const HandlerState& s, std::span<const uint32_t> oid, bool inclusive,
                    VarBind& out) {
  return status_next(s.status, oid, inclusive, out);
}

bool alert_next(const HandlerState& s, std::span<const uint32_t> oid, bool inclusive,
                VarBind& out) {
  return alerts_next(s.alerts, oid, inclusive, out);
}

netsnmp_handler_registration* register_with(HandlerState& state, Netsnmp_Node_Handler* fn,
                                            const Oid& subtree, const std::string& context) {
  std::vector<::oid> root(subtree.begin(), subtree.end());
  const std::string name = "ibpulse" + (context.empty() ? std::string() : "@" + context);
  netsnmp_handler_registration* reg = netsnmp_create_handler_registration(
      name.c_str(), fn, root.data(), root.size(), HANDLER_CAN_RONLY);
  if (reg == nullptr) return nullptr;
  reg->handler->myvoid = &state;
  if (!context.empty()) reg->contextName = strdup(context.c_str());
  if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) return nullptr;
  return reg;
}

}  // namespace

netsnmp_handler_registration* register_status(HandlerState& state, const std::string& context) {
  return register_with(state, &handle_scalars<&collector_next>, collector_status_oid(), context);
}

netsnmp_handler_registration* register_alerts(HandlerState& state, const std::string& context) {
  return register_with(state, &handle_scalars<&alert_next>, alert_scalars_oid(), context);
}

netsnmp_handler_registration* register_subtree(HandlerState& state, const Oid& subtree,
                                               const std::string& context) {
  return register_with(state, &handle, subtree, context);
}

}  // namespace ibpulse::exporters::snmp::detail
