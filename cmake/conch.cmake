# Helpers that keep every target of the tree built the same way.

include(GNUInstallDirs)

# conch_export(<target> [NAME <name>])
# Puts a library into the installed CMake package (cmake/install.cmake) as
# Conch::<name>, and gives the tree the same alias, so that code written
# against the package builds in the tree too. <name> defaults to the target's
# name without its conch_ prefix.
function(conch_export target)
  cmake_parse_arguments(arg "" "NAME" "" ${ARGN})
  if(NOT arg_NAME)
    string(REGEX REPLACE "^conch_" "" arg_NAME ${target})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${arg_NAME})
  add_library(Conch::${arg_NAME} ALIAS ${target})
  set_property(GLOBAL APPEND PROPERTY CONCH_EXPORTED_TARGETS ${target})
endfunction()

# conch_installed_headers(<out>)
# Every header the package installs, as "<root>|conch/<layer>/.../x.hpp"
# pairs: the four source roots' headers without the tests' fixtures
# (test/ and test_support/ folders, *_test_support.hpp).
function(conch_installed_headers out)
  set(result "")
  foreach(root IN ITEMS runtime services actors transports)
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/${root}
      ${PROJECT_SOURCE_DIR}/${root}/conch/*.hpp)
    foreach(header IN LISTS headers)
      if(NOT header MATCHES "/(test|test_support)/|_test_support\\.hpp$")
        list(APPEND result "${root}|${header}")
      endif()
    endforeach()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# conch_add_library(<name> SOURCES <files...> [INCLUDE_ROOT <dir>]
#                   [PUBLIC_DEPS <targets...>] [PRIVATE_DEPS <targets...>])
#                   [EXPORT_NAME <name>])
# A static, position-independent library, exported (conch_export). Its
# include root (default: the folder it is declared in) is where
# "conch/<layer>/..." paths start; installed, that is the include folder.
function(conch_add_library name)
  cmake_parse_arguments(arg "" "INCLUDE_ROOT;EXPORT_NAME" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS"
                        ${ARGN})
  if(NOT arg_INCLUDE_ROOT)
    set(arg_INCLUDE_ROOT ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  add_library(${name} STATIC ${arg_SOURCES})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${arg_INCLUDE_ROOT}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${name} PUBLIC ${arg_PUBLIC_DEPS} PRIVATE ${arg_PRIVATE_DEPS})
  # conch_warnings' options, not the target: a static library's private links
  # are part of its export, and the warnings are not the package's.
  target_compile_options(${name} PRIVATE
    $<TARGET_PROPERTY:conch_warnings,INTERFACE_COMPILE_OPTIONS>)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(arg_EXPORT_NAME)
    conch_export(${name} NAME ${arg_EXPORT_NAME})
  else()
    conch_export(${name})
  endif()
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
