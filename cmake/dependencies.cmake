# Finds every third-party dependency. All come from Debian packages
# (scripts/setup.sh installs them); nothing is downloaded at build time.

find_package(Threads REQUIRED)

# CAF 0.17 ships neither a CMake config nor a pkg-config file.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
add_library(CAF::core UNKNOWN IMPORTED)
set_target_properties(CAF::core PROPERTIES
  IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES Threads::Threads)

find_package(Protobuf REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(RapidJSON CONFIG REQUIRED)
add_library(conch_rapidjson INTERFACE)
target_include_directories(conch_rapidjson SYSTEM INTERFACE ${RAPIDJSON_INCLUDE_DIRS})
target_compile_definitions(conch_rapidjson INTERFACE RAPIDJSON_HAS_STDSTRING=1)

find_package(GTest CONFIG REQUIRED)
include(GoogleTest)
find_package(benchmark CONFIG REQUIRED)

option(CONCH_ENABLE_CUDA "Build the CUDA memory support when the toolkit is found" ON)
if(CONCH_ENABLE_CUDA)
  find_package(CUDAToolkit QUIET)
endif()
