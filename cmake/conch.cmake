# Helpers that keep every target of the tree built the same way.

# conch_add_library(<name> SOURCES <files...> [INCLUDE_ROOT <dir>]
#                   [PUBLIC_DEPS <targets...>] [PRIVATE_DEPS <targets...>])
# A static, position-independent library. Its include root (default: the
# folder it is declared in) is where "conch/<layer>/..." paths start.
function(conch_add_library name)
  cmake_parse_arguments(arg "" "INCLUDE_ROOT" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  if(NOT arg_INCLUDE_ROOT)
    set(arg_INCLUDE_ROOT ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  add_library(${name} STATIC ${arg_SOURCES})
  target_include_directories(${name} PUBLIC ${arg_INCLUDE_ROOT})
  target_link_libraries(${name} PUBLIC ${arg_PUBLIC_DEPS} PRIVATE ${arg_PRIVATE_DEPS} conch_warnings)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# conch_add_test(<name> SOURCES <files...> DEPS <targets...>)
# A GoogleTest executable registered with CTest, one CTest entry per test case.
function(conch_add_test name)
  if(NOT CONCH_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(arg "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_DEPS} conch_warnings GTest::gtest GTest::gtest_main GTest::gmock)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES ENVIRONMENT "CONCH_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
