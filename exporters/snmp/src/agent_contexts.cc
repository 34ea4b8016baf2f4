// The agent's contexts: one view per new snapshot, the fabric's context and one per node
// registered and dropped as nodes come and go, the fabric's kept first in net-snmp's list.
#include <algorithm>
#include <iterator>

#include "agent_impl.h"

namespace ibpulse::exporters::snmp {

namespace detail {

std::vector<Oid> served_subtrees() {
  Oid ib_objects = kIbIfMib;
  ib_objects.push_back(1);
  Oid sma_objects = kIbSmaMib;  // served in node contexts only; empty in the fabric's
  sma_objects.push_back(1);
  // ibpulseSm: the fabric's nodes, in its context only; empty in the nodes'.
  return {{1, 3, 6, 1, 2, 1, 1},
          {1, 3, 6, 1, 2, 1, 2},
          {1, 3, 6, 1, 2, 1, 31, 1, 1},
          ib_objects,
          sma_objects,
          kIbpulsePorts,
          kIbpulseSm};
}

}  // namespace detail

bool SnmpAgent::Impl::register_context(const std::string& name) {
  auto& regs = registered[name];
  for (const Oid& subtree : detail::served_subtrees()) {
    netsnmp_handler_registration* reg = detail::register_subtree(state, subtree, name);
    if (reg == nullptr) return false;
    regs.push_back(reg);
  }
  return true;
}

void SnmpAgent::Impl::unregister_context(const std::string& name) {
  auto it = registered.find(name);
  if (it == registered.end()) return;
  for (netsnmp_handler_registration* reg : it->second)
    unregister(reg);
  registered.erase(it);
}

void SnmpAgent::Impl::unregister(netsnmp_handler_registration* reg) {
  std::vector<::oid> root(reg->rootoid, reg->rootoid + reg->rootoid_len);
  const std::string context = reg->contextName != nullptr ? reg->contextName : "";
  unregister_mib_context(root.data(), root.size(), reg->priority, reg->range_subid,
                         reg->range_ubound, context.c_str());
}

void SnmpAgent::Impl::refresh_view() {
  auto snapshot = snapshots->load();
  auto health = healths ? healths->load() : nullptr;
  if (!snapshot || (snapshot == seen && health == seen_health)) return;
  seen = snapshot;
  seen_health = health;
  state.view = std::make_shared<const MibView>(
      snapshot, options.system, started, options.node_contexts, link_traps_on(), std::move(health));
  views.fetch_add(1, std::memory_order_relaxed);
}

void SnmpAgent::Impl::sync_registrations() {
  if (!state.view || state.view == registered_view) return;
  registered_view = state.view;
  if (options.node_contexts) sync_node_contexts();
  if (!registered.contains(state.fabric_context)) {
    bool ok = register_context(state.fabric_context);
    if (ok && options.status) {
      netsnmp_handler_registration* reg = register_status(state, state.fabric_context);
      ok = reg != nullptr;
      if (ok) registered[state.fabric_context].push_back(reg);
    }
    if (ok && (options.status || !options.trap_sinks.empty())) {
      netsnmp_handler_registration* reg = register_alerts(state, state.fabric_context);
      ok = reg != nullptr;
      if (ok) registered[state.fabric_context].push_back(reg);
    }
    if (!ok && options.log) options.log(3, "cannot register the fabric's SNMP subtrees");
  }
  fabric_context_first();
}

void SnmpAgent::Impl::fabric_context_first() const {
  subtree_context_cache* head = get_top_context_cache();
  for (subtree_context_cache* c = head; c != nullptr; c = c->next) {
    if (c->context_name == nullptr || state.fabric_context != c->context_name) continue;
    if (c != head) {
      std::swap(c->context_name, head->context_name);
      std::swap(c->first_subtree, head->first_subtree);
    }
    return;
  }
}

void SnmpAgent::Impl::sync_node_contexts() {
  const std::vector<std::string> wanted = state.view->node_contexts();
  std::vector<std::string> current;
  for (const auto& [name, regs] : registered)
    if (name != state.fabric_context) current.push_back(name);
  if (current == wanted) return;  // both sorted
  std::vector<std::string> gone;
  std::vector<std::string> added;
  std::set_difference(current.begin(), current.end(), wanted.begin(), wanted.end(),
                      std::back_inserter(gone));
  std::set_difference(wanted.begin(), wanted.end(), current.begin(), current.end(),
                      std::back_inserter(added));
  for (const std::string& name : gone)
    unregister_context(name);
  for (const std::string& name : added)
    register_context(name);
  if (options.agentx.empty()) communities->set(wanted);  // the master maps them otherwise
  contexts.store(wanted.size(), std::memory_order_relaxed);
}

}  // namespace ibpulse::exporters::snmp
