#pragma once
// The agent's access configuration as net-snmp config lines (VACM views, groups and access,
// v1/v2c communities, SNMPv3 users), and the community@context mappings kept in step with the
// node contexts. Private to the SNMP exporter.
//
// Thread safety: the line builders are pure; ContextCommunities belongs to the agent thread.

#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/exporters/snmp/agent.h"

struct com2SecEntry_s;

namespace ibpulse::exporters::snmp::detail {

// Lines for netsnmp_config_remember(): read-only views of everything for the communities
// (v1, v2c, from `sources`) and for the SNMPv3 users (authPriv only).
std::vector<std::string> access_lines(const AgentOptions& options);

// "default" (IPv4 and IPv6), or an IPv4 or IPv6 address[/prefix length].
bool valid_source(const std::string& source);

// `COMMUNITY@CONTEXT` for every community and node context: net-snmp has no wildcard for it, so
// the agent replaces the mappings whenever the set of nodes changes.
class ContextCommunities {
 public:
  explicit ContextCommunities(const AgentOptions& options) : options_(options) {}
  ~ContextCommunities() { clear(); }
  ContextCommunities(const ContextCommunities&) = delete;
  ContextCommunities& operator=(const ContextCommunities&) = delete;

  void set(const std::vector<std::string>& contexts);  // replaces every mapping
  size_t size() const { return entries_.size(); }

 private:
  void clear();
  void set_ipv6(const std::vector<std::string>& contexts);
  const AgentOptions& options_;
  std::vector<com2SecEntry_s*> entries_;
};

}  // namespace ibpulse::exporters::snmp::detail
