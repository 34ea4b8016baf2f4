# Declarative helpers in the style of abseil's absl_cc_library: each folder's CMakeLists.txt is
# a short list of declarations.

set(IBPULSE_WARNINGS -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough)

function(ibpulse_apply_options target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_compile_options(${target} PRIVATE ${IBPULSE_WARNINGS})
  if(IBPULSE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(IBPULSE_SANITIZE STREQUAL "address" OR IBPULSE_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  elseif(IBPULSE_SANITIZE STREQUAL "thread")
    target_compile_options(${target} PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=thread)
  endif()
  if(IBPULSE_FUZZ)  # coverage for libFuzzer in every module; fuzzers link its main
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

# ibpulse_checks_need(FOUND <bool> TOOL <name> CHECKS <what>): `what` is left out without the
# tool, never silently: with IBPULSE_REQUIRE_TOOLS (CI) the configuration stops; otherwise the
# checks are listed at its end. Returns whether the checks can be added in IBPULSE_CHECKS_OK.
function(ibpulse_checks_need)
  cmake_parse_arguments(ARG "" "FOUND;TOOL;CHECKS" "" ${ARGN})
  if(ARG_FOUND)
    set(IBPULSE_CHECKS_OK TRUE PARENT_SCOPE)
    return()
  endif()
  if(IBPULSE_REQUIRE_TOOLS)
    message(FATAL_ERROR "${ARG_TOOL} not found, needed by ${ARG_CHECKS} "
                        "(IBPULSE_REQUIRE_TOOLS, on with CI=true): run scripts/install-deps")
  endif()
  set_property(GLOBAL APPEND PROPERTY IBPULSE_SKIPPED_CHECKS "${ARG_CHECKS}: no ${ARG_TOOL}")
  set(IBPULSE_CHECKS_OK FALSE PARENT_SCOPE)
endfunction()

# ibpulse_cc_library(NAME n [SRCS ...] [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Creates ibpulse_<n> with alias ibpulse::<n>; public headers in ./include, sources in ./src.
function(ibpulse_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  set(target ibpulse_${ARG_NAME})
  if(ARG_SRCS)
    add_library(${target} STATIC ${ARG_SRCS})
    target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                         PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
    ibpulse_apply_options(${target})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_link_libraries(${target} INTERFACE ${ARG_PUBLIC_DEPS})
  endif()
  add_library(ibpulse::${ARG_NAME} ALIAS ${target})
endfunction()

# ibpulse_cc_test(NAME n SRCS ... DEPS ... LABELS unit|integration [RESOURCE_LOCK r] [TIMEOUT s]
#                 [SANITIZE | NO_SANITIZE])
# One CTest test per binary: integration binaries bring up one simulated fabric per binary.
# Unit tests (unless NO_SANITIZE), and integration tests marked SANITIZE, also carry the label
# `sanitize` and are built by the target `sanitized_tests`: what ./run sanitize builds and runs
# under ASan and TSan.
function(ibpulse_cc_test)
  cmake_parse_arguments(ARG "SANITIZE;NO_SANITIZE" "NAME;TIMEOUT" "SRCS;DEPS;LABELS;RESOURCE_LOCK" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock)
  ibpulse_apply_options(${ARG_NAME})
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  if(("unit" IN_LIST ARG_LABELS OR ARG_SANITIZE) AND NOT ARG_NO_SANITIZE)
    list(APPEND ARG_LABELS sanitize)
    if(NOT TARGET sanitized_tests)
      add_custom_target(sanitized_tests)
    endif()
    add_dependencies(sanitized_tests ${ARG_NAME})
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  if(ARG_RESOURCE_LOCK)
    set_tests_properties(${ARG_NAME} PROPERTIES RESOURCE_LOCK "${ARG_RESOURCE_LOCK}")
  endif()
endfunction()
