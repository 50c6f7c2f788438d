# Defines CAF::core, the C++ Actor Framework's core library, unless a target
# of that name exists already. CAF 0.17 ships neither a CMake config nor a
# pkg-config file. When CONCH_CAF_ROOT is set, only that prefix is searched.
# Leaves CAF::core undefined when CAF is not found; the caller decides.
if(TARGET CAF::core)
  return()
endif()
find_package(Threads QUIET)
if(CONCH_CAF_ROOT)
  set(CONCH_CAF_ROOT_HINT " under ${CONCH_CAF_ROOT}")
  find_path(CAF_INCLUDE_DIR caf/all.hpp PATHS ${CONCH_CAF_ROOT}/include NO_DEFAULT_PATH)
  find_library(CAF_CORE_LIBRARY caf_core PATHS ${CONCH_CAF_ROOT}/lib NO_DEFAULT_PATH)
else()
  set(CONCH_CAF_ROOT_HINT "")
  find_path(CAF_INCLUDE_DIR caf/all.hpp)
  find_library(CAF_CORE_LIBRARY caf_core)
endif()
if(CAF_INCLUDE_DIR AND CAF_CORE_LIBRARY AND TARGET Threads::Threads)
  add_library(CAF::core UNKNOWN IMPORTED)
  set_target_properties(CAF::core PROPERTIES
    IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
