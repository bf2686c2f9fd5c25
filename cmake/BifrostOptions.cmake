# Compiler settings shared by every bifrost target, applied through the interface library
# bifrost_options so that third-party code is not compiled with our warning set.
add_library(bifrost_options INTERFACE)
target_compile_options(bifrost_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                  -Wnon-virtual-dtor -Wimplicit-fallthrough)
if(BIFROST_WERROR)
  target_compile_options(bifrost_options INTERFACE -Werror)
endif()

if(BIFROST_SANITIZE)
  # Applied globally so that every object, test and library shares one runtime.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

if(BIFROST_FUZZ)
  # Coverage feedback needs the code under test instrumented, not only the harnesses, so the
  # fuzz build instruments everything; fuzz targets add -fsanitize=fuzzer at link time.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "BIFROST_FUZZ needs clang for libFuzzer: -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Precompiled headers (docs/testing.md, "Build times"): each larger library precompiles the
# standard headers most of its files include, the test binaries share one PCH of GoogleTest
# (which brings most of the standard library). Parsing them is a third of a small TU's compile
# under ASan. ccache cannot cache a compile that uses a PCH (not without its pch sloppiness
# settings), so a build through ccache goes without them unless asked; such builds also keep
# every file honest about its own includes.
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(bifrost_pch_default OFF)
else()
  set(bifrost_pch_default ON)
endif()
option(BIFROST_PCH "Precompile the standard and GoogleTest headers" ${bifrost_pch_default})
# Libraries of a few small files (0.2-1.5 CPU s each): building their PCH (3.3-4 CPU s) would
# cost more than it saves (measured per library, docs/testing.md).
set(bifrost_libraries_without_pch bifrost_core bifrost_wire bifrost_world bifrost_sim)

# bifrost_add_library(name SOURCES ... DEPS ...): one static library per layer.
function(bifrost_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE bifrost_options)
  if(BIFROST_PCH AND NOT name IN_LIST bifrost_libraries_without_pch)
    # One PCH per library: its flags (-fPIC for the verbs library's dependencies) must match.
    target_precompile_headers(${name} PRIVATE <algorithm> <array> <cstdint> <deque> <functional>
                              <map> <memory> <optional> <span> <string> <unordered_map>
                              <variant> <vector> <fmt/core.h>)
  endif()
endfunction()

# The target that builds the tests' PCH; the first test creates it (GTest is found by then).
function(bifrost_test_pch_target)
  if(TARGET bifrost_test_pch)
    return()
  endif()
  set(source ${CMAKE_BINARY_DIR}/bifrost_test_pch.cc)
  file(CONFIGURE OUTPUT ${source} CONTENT "// The translation unit that builds the tests' PCH.\n")
  add_library(bifrost_test_pch OBJECT ${source})
  # The same usage requirements as every test (GTest::gtest_main, fmt's FMT_SHARED), or GCC
  # rejects the PCH (-Winvalid-pch, an error under -Werror).
  target_link_libraries(bifrost_test_pch PRIVATE GTest::gtest_main fmt::fmt bifrost_options)
  target_precompile_headers(bifrost_test_pch PRIVATE <gtest/gtest.h> <algorithm> <span>
                            <fmt/core.h>)
endfunction()

# bifrost_add_test(name SOURCES ... DEPS ... [LABELS label]): a GoogleTest binary registered
# with CTest test by test. One label only: gtest_discover_tests would split a list and lose
# the properties after it.
function(bifrost_add_test name)
  cmake_parse_arguments(ARG "" "LABELS" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main bifrost_options)
  if(BIFROST_PCH)
    bifrost_test_pch_target()
    target_precompile_headers(${name} REUSE_FROM bifrost_test_pch)
  endif()
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # tests/support/
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}"
                       ENVIRONMENT "BIFROST_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
