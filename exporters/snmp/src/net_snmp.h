#pragma once
// net-snmp's headers, in the one order that compiles, plus the few agent symbols Debian's
// headers do not declare. Private to the SNMP exporter.
//
// Thread safety: net-snmp is not thread-safe; only the agent thread calls it.

// clang-format off
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/library/snmpUDPDomain.h>
#include <net-snmp/library/snmpUDPIPv6Domain.h>
// clang-format on

extern "C" {
// agent/mibgroup/mibII/vacm_vars.c (libnetsnmpmibs): the access checks (community, user, view)
// and the VACM tables; without it every request would pass.
void init_vacm_vars(void);
// agent/mibgroup/snmpv3/*.c (libnetsnmpmibs): SNMP-FRAMEWORK-MIB's snmpEngine group (engineID,
// boots, time, max message size), SNMP-MPD-MIB's and SNMP-USER-BASED-SM-MIB's statistics:
// what an SNMPv3 manager reads to check the engine it talks to.
void init_snmpEngine(void);
void init_snmpMPDStats(void);
void init_usmStats(void);
// snmplib/transports/snmpUDPIPv6Domain.c: drops every com2sec6 mapping (exported, not declared).
void netsnmp_udp6_com2Sec6List_free(void);
// agent/snmp_agent.c: the first session the master agent listens on.
extern netsnmp_session* main_session;
// snmplib/snmp_api.c: every open session (struct session_list is in snmp_api.h).
extern struct session_list* Sessions;
}
