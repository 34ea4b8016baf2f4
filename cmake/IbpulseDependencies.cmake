# Every dependency comes from a Debian 12 package (scripts/install-deps); why each one is here:
# docs/dependencies.md.
find_package(PkgConfig REQUIRED)
pkg_check_modules(IBUMAD REQUIRED IMPORTED_TARGET libibumad)
pkg_check_modules(IBMAD REQUIRED IMPORTED_TARGET libibmad)
pkg_check_modules(IBNETDISC REQUIRED IMPORTED_TARGET libibnetdisc)

find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Boost 1.74 REQUIRED)
# The metrics server's TLS (OpenSSL 3) and its basic-auth bcrypt checks (libxcrypt's crypt_r);
# private to the Prometheus exporter (libcurl uses OpenSSL too, on its own).
find_package(OpenSSL 3 REQUIRED)
pkg_check_modules(LIBCRYPT REQUIRED IMPORTED_TARGET libcrypt)
find_package(ZLIB REQUIRED)
# The daemon's own metrics; private to the Prometheus exporter (and the render benchmark).
find_package(prometheus-cpp CONFIG REQUIRED)
# Prometheus remote write: protobuf (WriteRequest), snappy (block compression) and libcurl
# (HTTP/TLS to the receivers); private to exporters/remote_write.
find_package(Protobuf REQUIRED)
find_package(Snappy CONFIG REQUIRED)
find_package(CURL REQUIRED)
# net-snmp (Debian libsnmp-dev) for the embedded SNMP agent; private to the SNMP exporter. Not
# through net-snmp-config: its flags carry -Werror=format-security and perl's include paths.
find_path(NETSNMP_INCLUDE_DIR net-snmp/net-snmp-config.h REQUIRED)
find_library(NETSNMP_AGENT_LIBRARY netsnmpagent REQUIRED)
find_library(NETSNMP_MIBS_LIBRARY netsnmpmibs REQUIRED)  # VACM: the community and view checks
find_library(NETSNMP_LIBRARY netsnmp REQUIRED)
add_library(NetSnmp::agent INTERFACE IMPORTED)
target_include_directories(NetSnmp::agent SYSTEM INTERFACE ${NETSNMP_INCLUDE_DIR})
target_link_libraries(NetSnmp::agent INTERFACE ${NETSNMP_AGENT_LIBRARY} ${NETSNMP_MIBS_LIBRARY}
                                               ${NETSNMP_LIBRARY})

if(IBPULSE_BUILD_TESTS)
  find_package(GTest REQUIRED)
  find_package(rapidcheck REQUIRED)  # property-based tests of the converters
endif()
if(IBPULSE_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

set_package_properties(fmt PROPERTIES TYPE REQUIRED PURPOSE "formatting (g++ 12 has no <format>)")
set_package_properties(spdlog PROPERTIES TYPE REQUIRED PURPOSE "logging to standard error")
set_package_properties(CLI11 PROPERTIES TYPE REQUIRED PURPOSE "command line")
set_package_properties(OpenSSL PROPERTIES TYPE REQUIRED PURPOSE "TLS of the /metrics server")
set_package_properties(ZLIB PROPERTIES TYPE REQUIRED PURPOSE "gzip-compressed scrapes")
