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

# bifrost_add_library(name SOURCES ... DEPS ...): one static library per layer.
function(bifrost_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE bifrost_options)
endfunction()

# bifrost_add_test(name SOURCES ... DEPS ... [LABELS label]): a GoogleTest binary registered
# with CTest test by test. One label only: gtest_discover_tests would split a list and lose
# the properties after it.
function(bifrost_add_test name)
  cmake_parse_arguments(ARG "" "LABELS" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main bifrost_options)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # tests/support/
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}"
                       ENVIRONMENT "BIFROST_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
