# Checks of the MIB modules in mibs/, run by CTest (registered in mibs/CMakeLists.txt).
#
# cmake -DMODE=smilint -DSMILINT=<path> -DSMIPATH=<dir:dir:...> -DMODULE_FILE=<file>
#       -DWORK=<dir> -P MibCheck.cmake
#   smilint -l 4 must print nothing (it exits 0 even when it reports errors). Runs with an
#   empty configuration file, so /etc/smi.conf and ~/.smirc neither hide nor add messages.
#
# cmake -DMODE=translate -DSNMPTRANSLATE=<path> -DMIBDIRS=<dir:dir:...> -DMODULES=<A:B|ALL>
#       -DEXPECT="<MODULE::name>=<oid>|..." -DWORK=<dir> [-DOUR_MODULES=<A:B>]
#       [-DHEADER=<oids.h> -DHEADER_EXPECT="<constant>=<MODULE::name>|..."] -P MibCheck.cmake
#   snmptranslate -On of each name must print exactly .<oid>. With an explicit module list
#   net-snmp must print nothing on stderr; with ALL (which also loads every module of the
#   other folders, some of which cannot be loaded) no stderr line may name one of
#   OUR_MODULES. HEADER_EXPECT checks that a C++ OID constant ({1, 3, 6, ...}) in HEADER
#   equals what net-snmp makes of a MIB name.

function(fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "${text}")
endfunction()

function(require_tool path name package)
  if(NOT path OR NOT EXISTS "${path}")
    fail("${name} not found: install the Debian package ${package} (scripts/install-deps)")
  endif()
endfunction()

file(MAKE_DIRECTORY "${WORK}")

if(MODE STREQUAL "smilint")
  require_tool("${SMILINT}" smilint smitools)
  file(WRITE "${WORK}/smi.conf" "")
  set(ENV{SMIPATH} "${SMIPATH}")
  execute_process(COMMAND "${SMILINT}" -c "${WORK}/smi.conf" -l 4 "${MODULE_FILE}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(STRIP "${out}${err}" report)
  if(NOT rc EQUAL 0 OR NOT report STREQUAL "")
    fail("smilint -l 4 ${MODULE_FILE} (exit ${rc}, SMIPATH=${SMIPATH}):\n${report}")
  endif()
  message(STATUS "smilint -l 4: ${MODULE_FILE} is clean")
  return()
endif()

if(NOT MODE STREQUAL "translate")
  fail("MibCheck.cmake: unknown MODE '${MODE}'")
endif()

require_tool("${SNMPTRANSLATE}" snmptranslate snmp)
# Hermetic net-snmp: no snmp.conf (SNMPCONFPATH is an empty folder), MIB index cache and
# persistent files in the build tree, no MIBS/MIBDIRS from the caller.
# (net-snmp announces on stderr each persistent subfolder it has to create: create them.)
file(MAKE_DIRECTORY "${WORK}/conf" "${WORK}/persist/cert_indexes" "${WORK}/persist/mib_indexes")
set(ENV{SNMPCONFPATH} "${WORK}/conf")
set(ENV{SNMP_PERSISTENT_DIR} "${WORK}/persist")
unset(ENV{MIBS})
unset(ENV{MIBDIRS})

# translate(<name> <result var>): the numeric OID net-snmp gives <name>, without the dot.
function(translate name result)
  execute_process(COMMAND "${SNMPTRANSLATE}" -M "${MIBDIRS}" -m "${MODULES}" -On "${name}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(STRIP "${out}" out)
  string(STRIP "${err}" err)
  set(cmd "snmptranslate -M ${MIBDIRS} -m ${MODULES} -On ${name}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^\\.[0-9.]+$")
    fail("${cmd}: exit ${rc}, output '${out}'\n${err}")
  endif()
  if(MODULES STREQUAL "ALL")
    string(REPLACE ":" ";" ours "${OUR_MODULES}")
    string(REPLACE "\n" ";" lines "${err}")
    foreach(line IN LISTS lines)
      foreach(module IN LISTS ours)
        string(FIND "${line}" "${module}" at)
        if(at GREATER -1)
          fail("${cmd}: net-snmp reports a problem with ${module}:\n${err}")
        endif()
      endforeach()
    endforeach()
  elseif(NOT err STREQUAL "")
    fail("${cmd}: net-snmp printed on stderr:\n${err}")
  endif()
  string(SUBSTRING "${out}" 1 -1 oid)
  set(${result} "${oid}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" pairs "${EXPECT}")
set(checked 0)
foreach(pair IN LISTS pairs)
  if(NOT pair MATCHES "^([^=]+)=([0-9.]+)$")
    fail("MibCheck.cmake: bad EXPECT entry '${pair}' (want MODULE::name=oid)")
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(want "${CMAKE_MATCH_2}")
  translate("${name}" got)
  if(NOT got STREQUAL want)
    fail("${name}: net-snmp says ${got}, expected ${want}")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()

if(HEADER_EXPECT)
  file(READ "${HEADER}" header)
  string(REPLACE "|" ";" pairs "${HEADER_EXPECT}")
  foreach(pair IN LISTS pairs)
    if(NOT pair MATCHES "^([A-Za-z0-9_]+)=(.+)$")
      fail("MibCheck.cmake: bad HEADER_EXPECT entry '${pair}' (want constant=MODULE::name)")
    endif()
    set(constant "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    if(NOT header MATCHES "${constant} = {([0-9, ]+)}")
      fail("${HEADER}: no '${constant} = {1, 3, 6, ...}' found")
    endif()
    string(REPLACE " " "" code_oid "${CMAKE_MATCH_1}")
    string(REPLACE "," "." code_oid "${code_oid}")
    translate("${name}" got)
    if(NOT got STREQUAL code_oid)
      fail("${constant} in ${HEADER} is ${code_oid} but ${name} is ${got}: "
           "the MIB and the agent disagree")
    endif()
    math(EXPR checked "${checked} + 1")
  endforeach()
endif()

message(STATUS "snmptranslate: ${checked} OIDs as expected (modules ${MODULES})")
