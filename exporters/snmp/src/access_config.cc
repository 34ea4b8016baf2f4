#include "access_config.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include "net_snmp.h"

namespace ibpulse::exporters::snmp::detail {
namespace {

constexpr const char* kCommunitySecName = "ibpulseCommunity";

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";  // validate() refuses quotes and newlines inside
}

// "default" or "a.b.c.d[/bits]" as an IPv4 network and mask; false for anything else (an IPv6
// source included).
bool parse_source(const std::string& source, in_addr& network, in_addr& mask) {
  if (source == "default") {
    network.s_addr = 0;
    mask.s_addr = 0;
    return true;
  }
  const size_t slash = source.find('/');
  const std::string address = source.substr(0, slash);
  int bits = 32;
  if (slash != std::string::npos) {
    const std::string b = source.substr(slash + 1);
    if (b.empty() || b.size() > 2 || b.find_first_not_of("0123456789") != std::string::npos)
      return false;
    bits = std::stoi(b);
    if (bits > 32) return false;
  }
  if (inet_pton(AF_INET, address.c_str(), &network) != 1) return false;
  mask.s_addr = bits == 0 ? 0 : htonl(~uint32_t{0} << (32 - bits));
  network.s_addr &= mask.s_addr;
  return true;
}

// "default" or an IPv6 address[/bits]: the sources of IPv6 requests (com2sec6).
bool ipv6_source(const std::string& source) {
  if (source == "default") return true;
  const size_t slash = source.find('/');
  in6_addr ignored{};
  if (inet_pton(AF_INET6, source.substr(0, slash).c_str(), &ignored) != 1) return false;
  if (slash == std::string::npos) return true;
  const std::string b = source.substr(slash + 1);
  return !b.empty() && b.size() <= 3 && b.find_first_not_of("0123456789") == std::string::npos &&
         std::stoi(b) <= 128;
}

// One com2sec6 mapping, added at run time as the config line would add it.
void add_ipv6_mapping(const std::string& context, const std::string& source,
                      const std::string& community) {
  std::string param = context.empty() ? "" : "-Cn " + context + " ";
  param += fmt::format("{} {} {}", kCommunitySecName, source, community);
  netsnmp_udp6_parse_security("com2sec6", param.data());
}

}  // namespace

std::vector<std::string> access_lines(const AgentOptions& options) {
  // One view of everything, for every principal: the fast path (fast_path.h) checks access
  // once per request and relies on it. A narrower view would have to be checked there too.
  std::vector<std::string> lines = {"view ibpulseAll included .1"};
  if (!options.communities.empty()) {
    for (const std::string& source : options.sources) {
      in_addr network{};
      in_addr mask{};
      for (const std::string& community : options.communities) {
        if (parse_source(source, network, mask))  // IPv4 requests
          lines.push_back(fmt::format("com2sec {} {} {}", kCommunitySecName, source, community));
        if (ipv6_source(source))  // IPv6 requests ("default": both)
          lines.push_back(fmt::format("com2sec6 {} {} {}", kCommunitySecName, source, community));
      }
    }
    lines.push_back(fmt::format("group ibpulseCommunities v1 {}", kCommunitySecName));
    lines.push_back(fmt::format("group ibpulseCommunities v2c {}", kCommunitySecName));
    // "" with prefix matching: every context, the fabric's and the nodes'.
    lines.push_back("access ibpulseCommunities \"\" any noauth prefix ibpulseAll none none");
  }
  for (const SnmpUser& user : options.users) {
    const std::string priv = user.priv_password.empty() ? user.auth_password : user.priv_password;
    lines.push_back(fmt::format("createUser {} {} {} {} {}", user.name, user.auth_protocol,
                                quoted(user.auth_password), user.priv_protocol, quoted(priv)));
    lines.push_back(fmt::format("group ibpulseUsers usm {}", user.name));
  }
  if (!options.users.empty()) {
    lines.push_back("access ibpulseUsers \"\" usm priv prefix ibpulseAll none none");
  }
  return lines;
}

void ContextCommunities::set(const std::vector<std::string>& contexts) {
  clear();
  set_ipv6(contexts);
  for (const std::string& source : options_.sources) {
    in_addr network{};
    in_addr mask{};
    if (!parse_source(source, network, mask)) continue;  // an IPv6 source: set_ipv6()
    for (const std::string& community : options_.communities) {
      for (const std::string& context : contexts) {
        com2SecEntry* entry = nullptr;
        const std::string name = community + "@" + context;
        if (netsnmp_udp_com2SecEntry_create(&entry, name.c_str(), kCommunitySecName,
                                            context.c_str(), &network, &mask, 0) == 0) {
          entries_.push_back(entry);
        }
      }
    }
  }
}

void ContextCommunities::clear() {
  for (com2SecEntry* entry : entries_) {
    if (netsnmp_udp_com2SecList_remove(entry) == 0) netsnmp_udp_com2Sec_free(entry);
  }
  entries_.clear();
}

// net-snmp keeps IPv6 mappings in a list it can only drop whole: the default context's
// (access_lines) are added back with the nodes'.
void ContextCommunities::set_ipv6(const std::vector<std::string>& contexts) {
  netsnmp_udp6_com2Sec6List_free();
  for (const std::string& source : options_.sources) {
    if (!ipv6_source(source)) continue;
    for (const std::string& community : options_.communities) {
      add_ipv6_mapping("", source, community);
      for (const std::string& context : contexts)
        add_ipv6_mapping(context, source, community + "@" + context);
    }
  }
}

bool valid_source(const std::string& source) {
  in_addr network{};
  in_addr mask{};
  return parse_source(source, network, mask) || ipv6_source(source);
}

}  // namespace ibpulse::exporters::snmp::detail
