#pragma once
// An SNMPv3 user (USM, authPriv): the agent's own users and the users notification sinks are
// sent to share this shape and these protocol names.
//
// Thread safety: a value type.

#include <string>

namespace ibpulse::exporters::snmp {

struct SnmpUser {
  std::string name;
  std::string auth_protocol = "SHA-256";  // SHA, SHA-224, SHA-256, SHA-384, SHA-512, MD5
  std::string auth_password;              // at least 8 characters (RFC 3414)
  std::string priv_protocol = "AES";      // AES (128), DES
  std::string priv_password;              // empty: the auth password
};

}  // namespace ibpulse::exporters::snmp
