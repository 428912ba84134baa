# Precompiled headers. Most of our translation units are small (one
# operation a file) and spend most of their compile time parsing the same
# standard-library and Abseil headers: an operation's file compiles in about
# a third of the time with them precompiled. Each target with at least
# WEBNNM_PCH_MIN_SOURCES sources compiles them once, first, and every one of
# its files starts from that (the headers are third-party, so editing our
# own headers never rebuilds a precompiled one). -DWEBNNM_PCH=OFF turns it
# off; a file then compiles as it would without (every file still includes
# what it uses: the precompiled headers are a speed-up, not a dependency).
option(WEBNNM_PCH "Precompile the common third-party headers of each target"
       ON)
set(WEBNNM_PCH_MIN_SOURCES 4)
set(WEBNNM_PCH_HEADERS
    <algorithm> <cmath> <cstdint> <functional> <map> <memory> <optional>
    <set> <string> <string_view> <utility> <vector>
    <absl/status/status.h> <absl/status/statusor.h>
    <absl/strings/str_cat.h> <absl/strings/str_format.h>)

# webnnm_precompile(TARGET [HEADER...]): the common headers, and HEADERs
# (the target's own heavy third-party headers: gRPC, protobuf, GoogleTest),
# precompiled for TARGET's C++ files.
function(webnnm_precompile target)
  if(NOT WEBNNM_PCH)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.cc$")
  list(LENGTH sources count)
  if(count LESS WEBNNM_PCH_MIN_SOURCES)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${WEBNNM_PCH_HEADERS} ${ARGN})
endfunction()

# webnnm_library(NAME SOURCES... DEPS ... [PCH header...]): a static library
# of our own code, compiled with our warnings, with the repository root as
# include path; PCH names heavy headers to precompile beside the common ones.
function(webnnm_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PCH" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${WEBNNM_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  webnnm_precompile(${name} ${ARG_PCH})
endfunction()

# webnnm_unit_test(NAME SOURCES... DEPS ...): a GoogleTest binary whose
# tests are registered one by one with ctest under the "unit" label.
function(webnnm_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${WEBNNM_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main
                        GTest::gmock)
  webnnm_precompile(${name} <gtest/gtest.h> <gmock/gmock.h>)
  set(labels unit)
  if(ARG_LABELS)
    set(labels ${ARG_LABELS})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                       PROPERTIES LABELS "${labels}" TIMEOUT 120)
endfunction()
